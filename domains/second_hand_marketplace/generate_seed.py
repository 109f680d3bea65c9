"""Deterministic seed for the second_hand_marketplace domain: writes seed.json beside this file.

Run: python generate_seed.py
Everything comes from random.Random(SEED) and dates counted back from the domain clock
(2026-05-12T10:30:00); no wall clock, so every run writes the same file. Money is GBP pence.
Near neighbours are made on purpose: members sharing a name in different cities, one seller
with listings in every state, near-identical titles (WH-1000XM4 / WH-1000XM5), several
offers from one buyer, orders of one buyer in different states, open and closed reports on
one listing.
"""

from __future__ import annotations

import json
import random
from datetime import date, timedelta
from pathlib import Path

SEED = 20260512
TODAY = date(2026, 5, 12)
rng = random.Random(SEED)


def ident(prefix: str, n: int) -> str:
    return f"{prefix}-{n:05d}"


def day(offset: int) -> str:
    return (TODAY + timedelta(days=offset)).isoformat()


def shipping_for(weight: int) -> int:
    for limit, price in ((1000, 299), (2000, 399), (5000, 599), (10000, 899)):
        if weight <= limit:
            return price
    return 1499


def fee_for(item: int) -> int:
    return 70 + (item * 5 + 50) // 100


CARRIER_ADJUST = {"royal_mail": 0, "evri": -60, "dpd": 120, "inpost": -40}
CARRIER_PREFIX = {"royal_mail": "RM", "evri": "H01", "dpd": "15502", "inpost": "IP"}


def label_cost(carrier: str, weight: int) -> int:
    return shipping_for(weight) + CARRIER_ADJUST[carrier]


def tracking(carrier: str, label_id: str) -> str:
    number = int(label_id.split("-")[1])
    return f"{CARRIER_PREFIX[carrier]}{number * 7919 + 104729:09d}GB"


# ----------------------------------------------------------------------------- members
PEOPLE = [
    ("Hannah Whitfield", "Leeds", "LS6 2AB"), ("Tom Ashby", "Bristol", "BS7 8QT"),
    ("Priya Desai", "Leicester", "LE2 1TR"), ("Callum McKenzie", "Glasgow", "G12 8QQ"),
    ("Aisha Bello", "London", "E8 3RL"), ("Gareth Pryce", "Cardiff", "CF24 4HQ"),
    ("Niamh O'Connor", "Manchester", "M20 2RN"), ("Oliver Brennan", "Liverpool", "L17 8XP"),
    ("Sophie Clarke", "Brighton", "BN2 1HW"), ("Rahul Mehta", "Birmingham", "B13 9JL"),
    ("Eleanor Hughes", "Oxford", "OX4 1DS"), ("Jamie Fletcher", "Sheffield", "S11 8YA"),
    ("Chloe Barnes", "Nottingham", "NG7 1FB"), ("Kwabena Owusu", "London", "SE15 4NX"),
    ("Isla Murray", "Edinburgh", "EH9 1PR"), ("Declan Walsh", "Belfast", "BT9 6AX"),
    ("Freya Lawson", "York", "YO10 3BP"), ("Marcus Holt", "Newcastle", "NE2 4AT"),
    ("Zainab Hussain", "Bradford", "BD8 7DY"), ("Harry Pembridge", "Bath", "BA2 3EJ"),
    ("Lucy Tran", "Cambridge", "CB1 2LJ"), ("Ben Okoro", "Coventry", "CV5 6FN"),
    ("Megan Doyle", "Norwich", "NR2 3PG"), ("Arjun Kapoor", "Reading", "RG1 5AQ"),
    ("Rosie Whitaker", "Exeter", "EX4 4QJ"), ("Ewan Fraser", "Aberdeen", "AB24 3FX"),
    ("Sana Malik", "Manchester", "M14 6HR"), ("George Atkinson", "Leeds", "LS8 1DL"),
    ("Imogen Price", "Bristol", "BS3 1QU"), ("Daniel Kowalski", "Southampton", "SO17 1BJ"),
    ("Ruby Chambers", "Brighton", "BN1 6UR"), ("Nathan Cole", "London", "N16 7UJ"),
    ("Fatima Rahman", "Birmingham", "B29 6BD"), ("Liam Gallagher-Reid", "Glasgow", "G41 2PE"),
    ("Holly Bennett", "Cheltenham", "GL50 2QA"), ("Samuel Adeyemi", "London", "SW9 8EQ"),
    ("Grace Whitmore", "Harrogate", "HG1 2RT"), ("Connor Byrne", "Liverpool", "L15 0HL"),
    ("Mia Fernandes", "Leicester", "LE3 0QW"), ("Alfie Donovan", "Plymouth", "PL4 6AL"),
    ("Ellie Marsh", "Ipswich", "IP4 2BX"), ("Owen Griffiths", "Swansea", "SA2 0PP"),
    ("Yasmin Aziz", "Luton", "LU2 7HD"), ("Toby Hargreaves", "Manchester", "M21 9PQ"),
    ("Poppy Sinclair", "Edinburgh", "EH6 5LP"), ("Adam Novak", "Nottingham", "NG5 2FF"),
    ("Charlotte Reeves", "Oxford", "OX3 7BY"), ("Ibrahim Sesay", "Sheffield", "S7 1FH"),
    ("Jessica Lam", "Cambridge", "CB4 3DN"), ("Rory Campbell", "Dundee", "DD2 1NG"),
    # near neighbours: same names, other ids and cities
    ("Hannah Whitfield", "Sheffield", "S10 2TN"), ("Tom Ashby", "Bath", "BA1 5BL"),
    ("Priya Desai", "London", "HA9 8RQ"), ("Sophie Clarke", "Norwich", "NR3 4DE"),
    ("Callum McKenzie", "Edinburgh", "EH11 1BQ"), ("Aisha Bello", "Manchester", "M16 7WA"),
    ("Tom Ashbury", "Bristol", "BS6 5EP"), ("Hannah Whitfield-Cole", "Leeds", "LS4 2QE"),
]
MAIL = ["gmail.com", "outlook.com", "yahoo.co.uk", "icloud.com", "btinternet.com", "proton.me"]
SUSPENDED = {14, 33, 52}
UNVERIFIED = {3, 9, 17, 22, 26, 31, 38, 43, 47, 53, 55, 58}

members = []
emails: set[str] = set()
for i, (name, city, postcode) in enumerate(PEOPLE, start=1):
    first, *rest = name.lower().replace("'", "").replace("-", " ").split()
    last = rest[-1]
    for local in (f"{first}.{last}", f"{first[0]}{last}", f"{first}.{last}{rng.randint(2, 98)}", f"{last}.{first}{i}"):
        email = f"{local}@{rng.choice(MAIL)}"
        if email not in emails:
            break
    emails.add(email)
    count = rng.choice((0, 0, 1, 2, 3, 4, 6, 9, 12, 18, 25))
    total = sum(rng.choices((5, 4, 3, 2, 1), weights=(60, 25, 8, 4, 3))[0] for _ in range(count))
    members.append({
        "member_id": ident("MEM", i), "name": name, "email": email, "city": city, "postcode": postcode,
        "joined_on": day(-rng.randint(40, 1500)), "status": "suspended" if i in SUSPENDED else "active",
        "id_verified": 0 if i in UNVERIFIED else 1, "rating_total": total, "rating_count": count,
        "wallet_balance_pence": rng.choice((0, 0, 0, 450, 1275, 2300, 5890, 12000, 31050)),
    })
member_ids = [m["member_id"] for m in members]
active_ids = [m["member_id"] for m in members if m["status"] == "active"]
# fixed wallet values the tests rely on
members[1]["wallet_balance_pence"] = 25000   # MEM-00002 Tom Ashby pays from his wallet
members[4]["wallet_balance_pence"] = 800     # MEM-00005 Aisha Bello: not enough for most orders

# ----------------------------------------------------------------------------- listings
ITEMS = {
    "electronics": [
        ("Sony WH-1000XM4 noise cancelling headphones", 9500, 600), ("Sony WH-1000XM5 noise cancelling headphones", 17500, 650),
        ("Apple iPad Air 4th gen 64GB", 24000, 900), ("Nintendo Switch OLED white", 21000, 1200),
        ("Kindle Paperwhite 11th gen", 6500, 400), ("Canon EOS 250D body", 32000, 1100),
        ("Bose SoundLink Flex speaker", 6000, 800), ("Apple iPad Air 5th gen 64GB", 34000, 900),
        ("GoPro HERO9 Black", 14500, 500), ("Garmin Forerunner 245", 8000, 300),
    ],
    "clothing": [
        ("Barbour Beadnell waxed jacket size 12", 9000, 1500), ("Levi's 501 jeans W32 L32", 2500, 700),
        ("Patagonia Better Sweater fleece M", 5500, 800), ("Dr Martens 1460 boots UK 7", 6000, 1800),
        ("North Face Nuptse puffer jacket L", 14000, 1300), ("Levi's 511 jeans W32 L30", 2200, 700),
        ("Reiss wool coat size 10", 8500, 1600), ("Adidas Samba trainers UK 8", 4500, 1200),
    ],
    "furniture": [
        ("IKEA Kallax 4x4 shelving unit white", 6000, 28000), ("Mid-century oak sideboard", 26000, 29000),
        ("Habitat velvet armchair green", 18000, 25000), ("Ercol Windsor dining chairs pair", 22000, 14000),
        ("IKEA Kallax 2x4 shelving unit black", 4000, 18000), ("Pine bedside table", 3500, 9000),
    ],
    "books": [
        ("Harry Potter complete box set paperback", 3500, 3200), ("Ottolenghi Simple cookbook hardback", 1200, 1300),
        ("Penguin Modern Classics bundle of 10", 2000, 2500), ("The Lord of the Rings illustrated edition", 4500, 2100),
        ("Ottolenghi Jerusalem cookbook hardback", 1400, 1400), ("Terry Pratchett Discworld first 12 novels", 3000, 3600),
    ],
    "sports": [
        ("Carrera Subway 1 hybrid bike M", 22000, 15000), ("Peloton weights set 3lb", 3000, 3000),
        ("Wilson Pro Staff tennis racket", 7000, 700), ("Yoga mat Manduka PRO 6mm", 5000, 3400),
        ("Decathlon Quechua 2 second tent", 2800, 2800), ("Callaway Strata golf set", 18000, 12000),
    ],
    "toys": [
        ("LEGO Millennium Falcon 75257 complete", 9000, 2400), ("LEGO Hogwarts Castle 71043 complete", 30000, 9000),
        ("Sylvanian Families cosy cottage bundle", 3500, 1800), ("Brio wooden railway set 80 pieces", 4000, 3500),
        ("LEGO Millennium Falcon 75192 UCS sealed", 65000, 13000), ("Hot Wheels track builder set", 1500, 1600),
    ],
    "music": [
        ("Fender Squier Stratocaster sunburst", 14000, 4200), ("Yamaha P-45 digital piano", 26000, 11500),
        ("Boss Katana 50 MkII amp", 15000, 11000), ("Vinyl bundle 1970s rock 25 LPs", 7500, 6000),
        ("Fender Player Stratocaster sunburst", 45000, 4300), ("Ukulele soprano Kala KA-15S", 3500, 900),
    ],
    "home": [
        ("Le Creuset cast iron casserole 24cm volcanic", 9500, 4600), ("Dyson V11 cordless vacuum", 21000, 3200),
        ("KitchenAid Artisan stand mixer red", 23000, 11000), ("Nespresso Vertuo Next coffee machine", 5500, 4200),
        ("Le Creuset cast iron casserole 20cm cerise", 7500, 3800), ("Smeg kettle pastel blue", 6000, 1700),
    ],
}
CONDITIONS = ("new_with_tags", "like_new", "good", "fair", "for_parts")
DESCRIPTIONS = {
    "new_with_tags": "Unused, still with the original tags and packaging.",
    "like_new": "Used a handful of times, no visible marks.",
    "good": "Used and working well, a few light scuffs shown in the photos.",
    "fair": "Clearly used with visible wear, fully functional.",
    "for_parts": "Not working, sold as spares or repair.",
}
catalogue = [(cat, *item) for cat, items in ITEMS.items() for item in items]

listings = []
n_listing = 0


def add_listing(seller: str, status: str, created_offset: int, item=None, condition=None) -> dict:
    global n_listing
    n_listing += 1
    cat, title, base, weight = item or rng.choice(catalogue)
    cond = condition or rng.choices(CONDITIONS, weights=(8, 30, 40, 17, 5))[0]
    factor = {"new_with_tags": 1.0, "like_new": 0.85, "good": 0.7, "fair": 0.5, "for_parts": 0.25}[cond]
    price = max(100, int(round(base * factor * rng.uniform(0.9, 1.1) / 50.0)) * 50)
    seller_row = members[int(seller.split("-")[1]) - 1]
    if not seller_row["id_verified"]:
        price = min(price, 25000)
    row = {
        "listing_id": ident("LST", n_listing), "seller_id": seller, "title": title,
        "description": f"{title}. {DESCRIPTIONS[cond]} Collection from {seller_row['city']} or posted.",
        "category": cat, "item_condition": cond, "price_pence": price,
        "accepts_offers": 0 if rng.random() < 0.2 else 1, "weight_grams": weight, "status": status,
        "created_on": day(created_offset),
        "published_on": None if status == "draft" else day(min(0, created_offset + rng.randint(0, 2))),
    }
    listings.append(row)
    return row


# LST-00001..: a fixed set the tests name, then the crowd
fixed = [
    ("MEM-00001", "active", -20, catalogue[0], "good"),          # LST-00001 Sony XM4, accepts offers
    ("MEM-00001", "draft", -2, catalogue[1], "like_new"),        # LST-00002 draft with photos
    ("MEM-00001", "draft", -1, catalogue[2], "good"),            # LST-00003 draft without photos
    ("MEM-00003", "active", -15, catalogue[1], "like_new"),      # LST-00004 Sony XM5 (unverified seller)
    ("MEM-00006", "active", -30, catalogue[10], "good"),         # LST-00005 Barbour jacket
    ("MEM-00001", "withdrawn", -40, catalogue[4], "fair"),       # LST-00006 withdrawn kindle
    ("MEM-00007", "active", -10, catalogue[18], "good"),         # LST-00007 IKEA Kallax (heavy)
    ("MEM-00008", "active", -5, catalogue[30], "like_new"),      # LST-00008 LEGO Falcon
]
for seller, status, offset, item, cond in fixed:
    add_listing(seller, status, offset, item, cond)
listings[0]["accepts_offers"] = 1
listings[0]["price_pence"] = 7000
listings[3]["accepts_offers"] = 1
listings[6]["accepts_offers"] = 0
listings[7]["accepts_offers"] = 1
for _ in range(150):
    status = rng.choices(("active", "draft", "withdrawn", "removed"), weights=(80, 8, 8, 4))[0]
    add_listing(rng.choice(active_ids), status, -rng.randint(1, 110))

# ----------------------------------------------------------------------------- photos
photos = []
for listing in listings:
    if listing["listing_id"] == "LST-00003":
        continue
    count = rng.randint(0, 1) if listing["status"] == "draft" else rng.randint(1, 5)
    if listing["listing_id"] in ("LST-00002",):
        count = 2
    if listing["listing_id"] == "LST-00001":
        count = 8
    for pos in range(1, count + 1):
        photo_id = ident("PHO", len(photos) + 1)
        photos.append({
            "photo_id": photo_id, "listing_id": listing["listing_id"],
            "url": f"https://img.preloved-market.co.uk/{listing['listing_id'].lower()}/{pos}.jpg",
            "position": pos,
            "caption": rng.choice((None, None, "Front view", "Close-up of wear", "Label and size", "Box and accessories", "Serial plate")),
        })

# ----------------------------------------------------------------------------- orders + payments + labels
orders, payments, labels, disputes, reviews = [], [], [], [], []
offers = []
member_by_id = {m["member_id"]: m for m in members}


def new_label(order: dict, direction: str, carrier: str, status: str, created: str, weight: int) -> dict:
    label_id = ident("LBL", len(labels) + 1)
    row = {"label_id": label_id, "order_id": order["order_id"], "direction": direction, "carrier": carrier,
           "tracking_number": tracking(carrier, label_id), "weight_grams": weight,
           "cost_pence": label_cost(carrier, weight), "status": status, "created_on": created}
    labels.append(row)
    return row


def make_order(listing: dict, buyer: str, status: str, created_offset: int, price: int | None = None,
               offer_id: str | None = None, method: str | None = None) -> dict:
    item = price or listing["price_pence"]
    ship = shipping_for(listing["weight_grams"])
    fee = fee_for(item)
    order = {
        "order_id": ident("ORD", len(orders) + 1), "listing_id": listing["listing_id"], "buyer_id": buyer,
        "seller_id": listing["seller_id"], "offer_id": offer_id, "item_price_pence": item,
        "shipping_pence": ship, "protection_fee_pence": fee, "total_pence": item + ship + fee,
        "status": status, "created_on": day(created_offset), "paid_on": None, "shipped_on": None,
        "delivered_on": None, "completed_on": None,
    }
    orders.append(order)
    c = created_offset
    stages = ["awaiting_payment", "paid", "shipped", "delivered", "completed"]
    reached = {"awaiting_payment": 0, "paid": 1, "shipped": 2, "delivered": 3, "disputed": 3, "completed": 4,
               "refunded": 3, "cancelled": 1 if method else 0}[status]
    carrier = rng.choice(("royal_mail", "evri", "dpd", "inpost"))
    if reached >= 1:
        order["paid_on"] = day(c + (0 if reached > 1 else min(1, -c)))
        pay = {"payment_id": ident("PAY", len(payments) + 1), "order_id": order["order_id"],
               "method": method or rng.choice(("card", "card", "card", "wallet", "bank_transfer")),
               "amount_pence": order["total_pence"], "refunded_pence": 0, "released_pence": 0,
               "status": "held", "held_on": order["paid_on"], "settled_on": None}
        payments.append(pay)
    if reached >= 2:
        order["shipped_on"] = day(c + 1)
    if reached >= 3:
        order["delivered_on"] = day(c + 3)
    if reached >= 4:
        order["completed_on"] = day(c + 5)
        pay["status"], pay["released_pence"], pay["settled_on"] = "released", item + ship, order["completed_on"]
    if status == "cancelled" and reached == 1:
        pay["status"], pay["refunded_pence"], pay["settled_on"] = "refunded", pay["amount_pence"], day(c + 1)
    # outbound label
    if status == "paid" and rng.random() < 0.5:
        new_label(order, "outbound", carrier, "created", day(c), listing["weight_grams"])
    if reached >= 2:
        label_status = "in_transit" if reached == 2 else "delivered"
        new_label(order, "outbound", carrier, label_status, day(c + 1), listing["weight_grams"])
    listing["status"] = {"completed": "sold", "refunded": "withdrawn", "cancelled": "active"}.get(status, "reserved")
    return order


active_listings = [l for l in listings if l["status"] == "active" and int(l["listing_id"][4:]) > 8]
rng.shuffle(active_listings)
pool = iter(active_listings)


def buyer_for(listing: dict) -> str:
    while True:
        b = rng.choice(active_ids)
        if b != listing["seller_id"]:
            return b


# fixed orders the tests name (ORD-00001..ORD-00012)
fixed_orders = [
    ("MEM-00002", "awaiting_payment", 0, None),      # ORD-00001 pay with wallet (Tom Ashby)
    ("MEM-00005", "awaiting_payment", -1, None),     # ORD-00002 Aisha: wallet too small
    ("MEM-00002", "awaiting_payment", -6, None),     # ORD-00003 payment window closed
    ("MEM-00010", "paid", -2, "card"),               # ORD-00004 paid, no label yet
    ("MEM-00011", "paid", -1, "wallet"),             # ORD-00005 paid by wallet, label created below
    ("MEM-00012", "shipped", -8, "card"),            # ORD-00006 shipped 7 days ago
    ("MEM-00013", "shipped", -2, "card"),            # ORD-00007 shipped yesterday
    ("MEM-00002", "delivered", -6, "card"),          # ORD-00008 delivered 3 days ago
    ("MEM-00015", "delivered", -25, "card"),         # ORD-00009 delivered 22 days ago (dispute window over)
    ("MEM-00002", "completed", -12, "card"),         # ORD-00010 completed 7 days ago
    ("MEM-00016", "completed", -50, "card"),         # ORD-00011 completed 45 days ago
    ("MEM-00017", "disputed", -9, "card"),           # ORD-00012 disputed, open
    ("MEM-00018", "disputed", -11, "wallet"),        # ORD-00013 disputed, awaiting return (label delivered)
    ("MEM-00019", "disputed", -10, "card"),          # ORD-00014 disputed, awaiting return (label in transit)
    ("MEM-00020", "disputed", -9, "card"),           # ORD-00015 disputed, not received, open
]
for buyer, status, offset, method in fixed_orders:
    listing = next(pool)
    while listing["seller_id"] == buyer:
        listing = next(pool)
    make_order(listing, buyer, status, offset, method=method)
# ORD-00005 gets a created label, ORD-00004 none
if not any(l["order_id"] == "ORD-00005" for l in labels):
    lst = next(l for l in listings if l["listing_id"] == orders[4]["listing_id"])
    new_label(orders[4], "outbound", "evri", "created", day(-1), lst["weight_grams"])
labels[:] = [l for l in labels if l["order_id"] != "ORD-00004"]
# the crowd
crowd = (["awaiting_payment"] * 5 + ["paid"] * 8 + ["shipped"] * 8 + ["delivered"] * 8 + ["completed"] * 28
         + ["cancelled"] * 8 + ["refunded"] * 5 + ["disputed"] * 4)
for status in crowd:
    listing = next(pool)
    offset = {"awaiting_payment": -rng.randint(0, 2), "paid": -rng.randint(1, 3), "shipped": -rng.randint(2, 6),
              "delivered": -rng.randint(4, 12), "completed": -rng.randint(10, 90), "cancelled": -rng.randint(3, 60),
              "refunded": -rng.randint(20, 60), "disputed": -rng.randint(6, 12)}[status]
    method = rng.choice((None, "card")) if status == "cancelled" else None
    make_order(listing, buyer_for(listing), status, offset, method=method if status != "cancelled" else method)
# near neighbour: Tom Ashby (MEM-00002) buys a second Sony XM5-like item that got cancelled
for o in orders:
    if o["status"] == "cancelled":
        lst = next(l for l in listings if l["listing_id"] == o["listing_id"])
        lst["status"] = "active"
# orders by status sanity: refunded orders need a payment
for o in orders:
    if o["status"] == "refunded":
        pay = next(p for p in payments if p["order_id"] == o["order_id"])
        pay["status"], pay["refunded_pence"], pay["settled_on"] = "refunded", pay["amount_pence"], day(
            (date.fromisoformat(o["delivered_on"]) - TODAY).days + 6)

# ----------------------------------------------------------------------------- disputes
DISPUTE_TEXT = {
    "not_received": "Tracking has not moved for days and nothing has arrived.",
    "not_as_described": "The listing said like new but there are deep scratches on the front.",
    "damaged": "Arrived with a cracked casing, the parcel was barely padded.",
    "counterfeit": "The stitching and serial number do not match the genuine product.",
}


def add_dispute(order: dict, reason: str, status: str, refund: int, opened: str, resolved: str | None) -> dict:
    row = {"dispute_id": ident("DSP", len(disputes) + 1), "order_id": order["order_id"], "opened_by": order["buyer_id"],
           "reason": reason, "description": DISPUTE_TEXT[reason], "status": status, "refund_pence": refund,
           "opened_on": opened, "resolved_on": resolved}
    disputes.append(row)
    return row


by_id = {o["order_id"]: o for o in orders}
add_dispute(by_id["ORD-00012"], "not_as_described", "open", 0, day(-4), None)           # DSP-00001
add_dispute(by_id["ORD-00013"], "damaged", "awaiting_return", 0, day(-6), None)         # DSP-00002
lst13 = next(l for l in listings if l["listing_id"] == by_id["ORD-00013"]["listing_id"])
new_label(by_id["ORD-00013"], "return", "royal_mail", "delivered", day(-5), lst13["weight_grams"])
add_dispute(by_id["ORD-00014"], "counterfeit", "awaiting_return", 0, day(-5), None)     # DSP-00003
lst14 = next(l for l in listings if l["listing_id"] == by_id["ORD-00014"]["listing_id"])
new_label(by_id["ORD-00014"], "return", "dpd", "in_transit", day(-3), lst14["weight_grams"])
o15 = by_id["ORD-00015"]
o15["delivered_on"] = None
next(l for l in labels if l["order_id"] == "ORD-00015")["status"] = "in_transit"
add_dispute(o15, "not_received", "open", 0, day(-1), None)                              # DSP-00004
for o in orders[15:]:
    if o["status"] == "disputed":
        reason = rng.choice(("not_as_described", "damaged"))
        add_dispute(o, reason, "open", 0, day((date.fromisoformat(o["delivered_on"]) - TODAY).days + 1), None)
    elif o["status"] == "refunded":
        reason = rng.choice(("not_as_described", "damaged", "counterfeit"))
        d_on = (date.fromisoformat(o["delivered_on"]) - TODAY).days
        add_dispute(o, reason, "resolved_refund", o["total_pence"], day(d_on + 1), day(d_on + 6))
        lst = next(l for l in listings if l["listing_id"] == o["listing_id"])
        new_label(o, "return", rng.choice(("royal_mail", "evri")), "delivered", day(d_on + 2), lst["weight_grams"])
completed = [o for o in orders if o["status"] == "completed" and o["order_id"] not in ("ORD-00010", "ORD-00011")]
for o in completed[:20]:
    d_on = (date.fromisoformat(o["delivered_on"]) - TODAY).days
    pay = next(p for p in payments if p["order_id"] == o["order_id"])
    if len(disputes) % 2:
        refund = (o["item_price_pence"] // 5 // 50) * 50 or 100
        add_dispute(o, rng.choice(("not_as_described", "damaged")), "resolved_partial", refund, day(d_on + 1), day(d_on + 2))
        pay["status"], pay["refunded_pence"] = "partially_refunded", refund
        pay["released_pence"] = o["item_price_pence"] + o["shipping_pence"] - refund
    else:
        add_dispute(o, rng.choice(("not_as_described", "not_received", "damaged")), "rejected", 0, day(d_on + 1), day(d_on + 2))
    o["completed_on"] = day(d_on + 2)
    pay["settled_on"] = o["completed_on"]

# ----------------------------------------------------------------------------- offers
def add_offer(listing: dict, buyer: str, made_by: str, amount: int, status: str, created: int,
              parent: str | None = None, message: str | None = None) -> dict:
    row = {"offer_id": ident("OFR", len(offers) + 1), "listing_id": listing["listing_id"], "buyer_id": buyer,
           "made_by": made_by, "parent_offer_id": parent, "amount_pence": amount, "status": status,
           "message": message, "created_on": day(created), "expires_on": day(created + 2)}
    offers.append(row)
    return row


L = {l["listing_id"]: l for l in listings}
add_offer(L["LST-00001"], "MEM-00002", "buyer", 5500, "pending", -1, message="Would you take 55? Can pay today.")  # OFR-00001
add_offer(L["LST-00001"], "MEM-00009", "buyer", 5000, "pending", 0)                                               # OFR-00002
add_offer(L["LST-00001"], "MEM-00011", "buyer", 4000, "pending", -5, message="Offer stands if still around")     # OFR-00003 (expired by date)
add_offer(L["LST-00004"], "MEM-00002", "buyer", 12000, "countered", -1)                                           # OFR-00004
add_offer(L["LST-00004"], "MEM-00002", "seller", 14500, "pending", 0, parent="OFR-00004")                         # OFR-00005
add_offer(L["LST-00005"], "MEM-00010", "buyer", 5000, "declined", -12)                                            # OFR-00006
add_offer(L["LST-00008"], "MEM-00036", "buyer", 6000, "pending", 0, message="Is the box included?")              # OFR-00007
add_offer(L["LST-00008"], "MEM-00036", "buyer", 5500, "expired", -9)                                              # OFR-00008
msgs = (None, None, "Can collect this weekend.", "Would you post to Scotland?", "Cash ready, quick sale?", "Is this still available?")
for listing in [l for l in listings if l["status"] == "active" and l["accepts_offers"] and int(l["listing_id"][4:]) > 8][:30]:
    for _ in range(rng.choice((1, 1, 2))):
        buyer = buyer_for(listing)
        amount = max(listing["price_pence"] // 2 + 50, int(listing["price_pence"] * rng.uniform(0.6, 0.9)) // 50 * 50)
        status = rng.choices(("pending", "declined", "expired", "countered"), weights=(40, 25, 25, 10))[0]
        created = -rng.randint(0, 1) if status == "pending" else -rng.randint(3, 30)
        parent = add_offer(listing, buyer, "buyer", amount, status, created, message=rng.choice(msgs))
        if status == "countered":
            counter = (amount + listing["price_pence"]) // 2 // 50 * 50
            add_offer(listing, buyer, "seller", counter, rng.choice(("declined", "expired")), created + 1, parent=parent["offer_id"])
# accepted offers behind some completed orders
for o in [o for o in orders if o["status"] == "completed"][15:27]:
    lst = L[o["listing_id"]]
    amount = o["item_price_pence"]
    off = add_offer(lst, o["buyer_id"], "buyer", amount, "accepted", (date.fromisoformat(o["created_on"]) - TODAY).days)
    o["offer_id"] = off["offer_id"]
    # the order's price is the accepted offer: a discount on the list price
    lst["price_pence"] = amount + (amount // 10 // 50) * 50 + 50

# ----------------------------------------------------------------------------- reviews
COMMENTS_BUYER = ["Item exactly as described, well packed.", "Quick dispatch and friendly seller.",
                  "Good condition but took a week to post.", "Lovely item, thank you!",
                  "Smaller than expected but as listed.", "Arrived damaged, seller was slow to reply."]
COMMENTS_SELLER = ["Prompt payment, great buyer.", "Smooth sale, would sell to again.", "Paid quickly, easy to deal with."]
for o in [o for o in orders if o["status"] == "completed"]:
    if o["order_id"] == "ORD-00010":
        continue
    if rng.random() < 0.85:
        stars = rng.choices((5, 4, 3, 2, 1), weights=(60, 25, 8, 4, 3))[0]
        comment = COMMENTS_BUYER[-1] if stars <= 2 else rng.choice(COMMENTS_BUYER[:5])
        reviews.append({"review_id": ident("REV", len(reviews) + 1), "order_id": o["order_id"], "reviewer_id": o["buyer_id"],
                        "reviewee_id": o["seller_id"], "stars": stars, "comment": comment, "created_on": o["completed_on"]})
    if rng.random() < 0.5:
        reviews.append({"review_id": ident("REV", len(reviews) + 1), "order_id": o["order_id"], "reviewer_id": o["seller_id"],
                        "reviewee_id": o["buyer_id"], "stars": rng.choice((5, 5, 4)), "comment": rng.choice(COMMENTS_SELLER),
                        "created_on": o["completed_on"]})
# ratings include the seeded reviews
for r in reviews:
    m = member_by_id[r["reviewee_id"]]
    m["rating_total"] += r["stars"]
    m["rating_count"] += 1

# ----------------------------------------------------------------------------- saved searches
QUERIES = [("Sony WH-1000XM", "electronics", 15000), ("iPad Air", "electronics", 30000), ("Kallax", "furniture", 5000),
           ("LEGO Millennium Falcon", "toys", None), ("Le Creuset", "home", 9000), ("Stratocaster", "music", 20000),
           ("Barbour", "clothing", 10000), ("Ottolenghi", "books", 1500), ("Dr Martens", None, 5000),
           ("Nintendo Switch", None, 20000), ("Levi's 501", "clothing", 3000), ("bike", "sports", None),
           ("vinyl", "music", 8000), ("Dyson", None, None), ("Kindle", "electronics", 7000)]
saved = [
    {"search_id": "SRC-00001", "member_id": "MEM-00002", "query": "Sony WH-1000XM", "category": "electronics",
     "max_price_pence": 15000, "created_on": day(-30)},
    {"search_id": "SRC-00002", "member_id": "MEM-00002", "query": "Kallax", "category": "furniture",
     "max_price_pence": None, "created_on": day(-12)},
]
for n in range(3, 11):  # MEM-00009 is at the limit of 10 saved searches
    q, c, p = QUERIES[n - 3]
    saved.append({"search_id": ident("SRC", n), "member_id": "MEM-00009", "query": q, "category": c,
                  "max_price_pence": p, "created_on": day(-rng.randint(5, 90))})
saved.append({"search_id": "SRC-00011", "member_id": "MEM-00009", "query": "Dyson", "category": None,
              "max_price_pence": None, "created_on": day(-3)})
saved.append({"search_id": "SRC-00012", "member_id": "MEM-00009", "query": "Kindle", "category": "electronics",
              "max_price_pence": 7000, "created_on": day(-2)})
while len(saved) < 42:
    q, c, p = rng.choice(QUERIES)
    m = rng.choice(member_ids[10:])
    if any(s["member_id"] == m and s["query"] == q for s in saved):
        continue
    saved.append({"search_id": ident("SRC", len(saved) + 1), "member_id": m, "query": q, "category": c,
                  "max_price_pence": p, "created_on": day(-rng.randint(1, 120))})

# ----------------------------------------------------------------------------- reports
REPORT_TEXT = {
    "prohibited_item": "Listing appears to include a replica weapon, which is not allowed.",
    "counterfeit": "Photos look like a copy, the logo is wrong.",
    "scam": "Seller asked me to pay by bank transfer outside the app.",
    "offensive": "Description contains abusive language.",
    "wrong_category": "This is listed in the wrong category.",
}
reports = []


def add_report(listing_id: str, reporter: str, reason: str, status: str, created: int, reviewed: int | None, note=None):
    reports.append({"report_id": ident("RPT", len(reports) + 1), "listing_id": listing_id, "reporter_id": reporter,
                    "reason": reason, "details": REPORT_TEXT[reason], "status": status, "created_on": day(created),
                    "reviewed_on": None if reviewed is None else day(reviewed), "review_note": note})


add_report("LST-00005", "MEM-00021", "counterfeit", "open", -2, None)                         # RPT-00001
add_report("LST-00005", "MEM-00024", "counterfeit", "open", -1, None)                         # RPT-00002
add_report("LST-00007", "MEM-00025", "wrong_category", "open", -3, None)                      # RPT-00003
add_report("LST-00001", "MEM-00027", "scam", "dismissed", -8, -6, "No evidence of off-platform payment.")  # RPT-00004
reserved_ids = [l["listing_id"] for l in listings if l["status"] == "reserved"]
add_report(reserved_ids[0], "MEM-00028", "prohibited_item", "open", -1, None)                # RPT-00005 on a reserved listing
removed_ids = [l["listing_id"] for l in listings if l["status"] == "removed"]
for lid in removed_ids:
    add_report(lid, rng.choice(active_ids), rng.choice(("prohibited_item", "counterfeit", "scam")), "upheld", -20, -18,
               "Listing breaks the prohibited items policy; removed.")
act = [l for l in listings if l["status"] == "active" and int(l["listing_id"][4:]) > 8]
while len(reports) < 36:
    lst = rng.choice(act)
    reporter = buyer_for(lst)
    if any(r["listing_id"] == lst["listing_id"] and r["reporter_id"] == reporter for r in reports):
        continue
    reason = rng.choice(tuple(REPORT_TEXT))
    status = rng.choice(("open", "dismissed", "dismissed"))
    created = -rng.randint(1, 40)
    add_report(lst["listing_id"], reporter, reason, status, created, None if status == "open" else created + 2,
               None if status == "open" else "Checked the listing; no policy breach found.")

# ----------------------------------------------------------------------------- a live deployment
# Everything below draws from its own generator, so the rows above (which the tests name) keep
# their values: people's dates of birth and phones, the moderation team, the sold and delivered
# orders that make up most of a live marketplace's history, and free text written per row.
live = random.Random(SEED + 1)

# members: a date of birth and a mobile number, as the account holds them; namesakes differ in both
used_phones: set[str] = set()
for m in members:
    born = date(1958, 1, 1) + timedelta(days=live.randint(0, 365 * 47))
    m["date_of_birth"] = born.isoformat()
    while True:
        phone = f"07{live.randint(300, 999)} {live.randint(100000, 999999)}"
        if phone not in used_phones:
            break
    used_phones.add(phone)
    m["phone"] = phone
# two namesakes share a city too: only the date of birth (or email, or phone) tells them apart
members[53 - 1]["city"], members[53 - 1]["postcode"] = "Leicester", "LE5 4PW"   # Priya Desai, like MEM-00003

# moderators: the trust and safety team reviews reports, the disputes team handles disputes and returns
STAFF = [
    "Sarah Collins", "David Osei", "Kirsty Maclean", "Rhys Morgan", "Anjali Nair", "Peter Lindqvist",
    "Bethany Hall", "Tariq Mahmood", "Laura Kennedy", "Joseph Adebayo", "Emma Sutherland", "Chris Palmer",
    "Hui Min Tan", "Michael Doherty", "Natalie Brooks", "Sarah Collins", "Victoria Nwosu", "Andrew Bell",
    "Kate Whelan", "Mohammed Iqbal", "Rebecca Stone", "Stuart Reid", "Olivia Grant", "Dominic Fox",
    "Jasmine Kaur", "Paul Richardson", "Helen Moss", "Ravi Shankar", "Louise Carter", "Simon Evans",
    "Agnieszka Nowak", "Ben Thornton", "Ciara Flynn", "Mark Jennings", "Leah Goldberg", "Daniel Kowalski",
]
moderators = []
staff_mail: set[str] = set()
for i, name in enumerate(STAFF, start=1):
    first, last = name.lower().split()[0], name.lower().split()[-1]
    email = f"{first}.{last}@preloved-market.co.uk"
    if email in staff_mail:
        email = f"{first[0]}{last}@preloved-market.co.uk"
    staff_mail.add(email)
    moderators.append({
        "moderator_id": ident("MOD", i), "name": name, "email": email,
        "team": "trust_safety" if i % 2 else "disputes",
        "started_on": day(-live.randint(60, 2200)),
    })

# free text written per row, never one sentence for everyone
CONDITION_TEXT = {
    "new_with_tags": ("Unused, still in the original packaging.", "Brand new with tags, unwanted gift.",
                      "Never used, bought two by mistake.", "Sealed, receipt available."),
    "like_new": ("Used a handful of times, no visible marks.", "Barely used and kept in a case.",
                 "Like new, only taken out to test it.", "Immaculate, used twice."),
    "good": ("Used and working well, a few light scuffs shown in the photos.", "Good used condition, some signs of wear.",
             "Works perfectly, small mark on one side.", "Well looked after, light wear from normal use."),
    "fair": ("Clearly used with visible wear, fully functional.", "Well used but does the job.",
             "Scratches and scuffs, priced to reflect it.", "Worn but working, see photos for marks."),
    "for_parts": ("Not working, sold as spares or repair.", "Faulty, powers on intermittently; for parts.",
                  "Broken, might suit someone handy.", "Spares only, untested."),
}
EXTRAS = ("Smoke-free home.", "Pet-free home.", "Selling as I have upgraded.", "Moving house, must go.",
          "Happy to answer questions.", "More photos on request.", "Reason for sale: no longer needed.",
          "Original box included.", "No box, well wrapped for posting.", "")
for lst in listings:
    seller_row = member_by_id[lst["seller_id"]]
    extra = live.choice(EXTRAS)
    handover = live.choice((f"Collection from {seller_row['city']} or posted.", "Posted within two days of payment.",
                            f"Can meet near {seller_row['city']} centre.", "Tracked postage only."))
    lst["description"] = " ".join(x for x in (f"{lst['title']}.", live.choice(CONDITION_TEXT[lst["item_condition"]]),
                                              extra, handover) if x)

OPENERS = {5: ("Brilliant", "Lovely", "Perfect", "Great", "Spot on"), 4: ("Good", "Nice", "Decent", "Solid"),
           3: ("OK", "Fine", "Acceptable"), 2: ("Disappointing", "Not great"), 1: ("Poor", "Very disappointing")}
BUYER_TAILS = {5: ("exactly as described and well packed", "arrived the day after I paid", "better than the photos",
                   "really quick dispatch, thank you", "as described, friendly seller"),
               4: ("as described, a little slow to post", "well packed, a couple of marks not in the photos",
                   "good value, took four days to arrive"),
               3: ("does the job but more worn than listed", "smaller than I expected", "postage took over a week"),
               2: ("arrived with a scuff not mentioned", "slow replies and slow postage"),
               1: ("arrived damaged and the seller did not reply", "not as described at all")}
SELLER_TAILS = ("paid straight away", "smooth sale", "easy to deal with", "quick payment and kind messages",
                "collected on time", "would sell to again")
listing_by_id = {l["listing_id"]: l for l in listings}
order_by_id = {o["order_id"]: o for o in orders}


def short(title: str) -> str:
    return " ".join(title.split()[:3])


def review_text(stars: int, order: dict, by_buyer: bool) -> str:
    if by_buyer:
        item = short(listing_by_id[order["listing_id"]]["title"])
        return f"{live.choice(OPENERS[stars])} {item}, {live.choice(BUYER_TAILS[stars])}."
    return f"{live.choice(OPENERS[stars])} buyer, {live.choice(SELLER_TAILS)}."


for r in reviews:
    o = order_by_id[r["order_id"]]
    r["comment"] = review_text(r["stars"], o, r["reviewer_id"] == o["buyer_id"])

DISPUTE_LINES = {
    "not_received": ("Tracking has not moved for {n} days and nothing has arrived.",
                     "The {item} never turned up; tracking stopped at the depot.",
                     "Still waiting for the {item}, the seller says it was posted."),
    "not_as_described": ("The {item} was listed as {cond} but has deep scratches on the front.",
                         "Listing did not mention the {item} has a missing part.",
                         "Colour and size of the {item} are not what the photos showed."),
    "damaged": ("The {item} arrived with a cracked casing, the parcel was barely padded.",
                "Box was crushed and the {item} is dented.", "The {item} stopped working on day one, it rattles inside."),
    "counterfeit": ("The stitching and serial number of the {item} do not match the genuine product.",
                    "Logo on the {item} is misprinted, I believe it is a fake.",
                    "Serial number of the {item} is not recognised by the maker."),
}
for d in disputes:
    if d["order_id"] in ("ORD-00012", "ORD-00013", "ORD-00014", "ORD-00015"):
        continue  # the fixed cases keep their words
    lst = listing_by_id[order_by_id[d["order_id"]]["listing_id"]]
    d["description"] = live.choice(DISPUTE_LINES[d["reason"]]).format(
        n=live.randint(5, 12), item=short(lst["title"]), cond=lst["item_condition"].replace("_", " "))

REPORT_LINES = {
    "prohibited_item": ("Listing appears to include a replica weapon, which is not allowed.",
                        "Pictures show an item that is banned on the site.", "This looks like a recalled product."),
    "counterfeit": ("Photos look like a copy, the logo is wrong.", "Price is far too low for the genuine {item}.",
                    "The tag on the {item} is a known fake design."),
    "scam": ("Seller asked me to pay by bank transfer outside the app.",
             "Seller sent me a link to pay on another website.", "Same photos as another listing under a different name."),
    "offensive": ("Description contains abusive language.", "Seller's notes on the {item} are insulting."),
    "wrong_category": ("This is listed in the wrong category.", "The {item} belongs under another category."),
}
NOTES_DISMISSED = ("Checked the listing; no policy breach found.", "Seller provided proof of purchase.",
                   "Photos are the seller's own; nothing to act on.", "Category is acceptable for this item.",
                   "No evidence of off-platform payment.")
for r in reports:
    if r["report_id"] in ("RPT-00001", "RPT-00002", "RPT-00003", "RPT-00004", "RPT-00005"):
        continue
    item = short(listing_by_id[r["listing_id"]]["title"])
    r["details"] = live.choice(REPORT_LINES[r["reason"]]).format(item=item)
    if r["status"] == "dismissed":
        r["review_note"] = live.choice(NOTES_DISMISSED)
    elif r["status"] == "upheld":
        r["review_note"] = live.choice(("Listing breaks the prohibited items policy; removed.",
                                        "Confirmed breach; listing taken down.", "Removed after checking the photos."))

OFFER_LINES = ("Can collect this weekend.", "Would you post to Scotland?", "Cash ready, quick sale?",
               "Is this still available?", "Would you meet halfway on price?", "Any chance of free postage?",
               "Can you send a photo of the back?", "Buying as a gift, is it boxed?", "Happy to pay today.",
               "Could you hold it until Friday?", None, None, None)
for off in offers:
    if int(off["offer_id"][4:]) > 8 and off["message"] is not None:
        off["message"] = live.choice(OFFER_LINES)

# most of a live marketplace's history: sold items with completed orders, a few just delivered
n_fixed_orders = len(orders)
for k in range(66):
    seller = live.choice(active_ids)
    cat, title, base, weight = live.choice(catalogue)
    cond = live.choices(CONDITIONS, weights=(8, 30, 40, 17, 5))[0]
    factor = {"new_with_tags": 1.0, "like_new": 0.85, "good": 0.7, "fair": 0.5, "for_parts": 0.25}[cond]
    price = max(100, int(round(base * factor * live.uniform(0.9, 1.1) / 50.0)) * 50)
    if not member_by_id[seller]["id_verified"]:
        price = min(price, 25000)
    recent = k < 6
    created = -live.randint(4, 9) if recent else -live.randint(12, 200)
    lst = {"listing_id": ident("LST", len(listings) + 1), "seller_id": seller, "title": title,
           "description": " ".join(x for x in (f"{title}.", live.choice(CONDITION_TEXT[cond]), live.choice(EXTRAS),
                                                "Posted within two days of payment.") if x),
           "category": cat, "item_condition": cond, "price_pence": price, "accepts_offers": 1 if live.random() < 0.8 else 0,
           "weight_grams": weight, "status": "reserved" if recent else "sold",
           "created_on": day(created - live.randint(3, 20)), "published_on": day(created - 2)}
    listings.append(lst)
    listing_by_id[lst["listing_id"]] = lst
    for pos in range(1, live.randint(1, 5) + 1):
        photos.append({"photo_id": ident("PHO", len(photos) + 1), "listing_id": lst["listing_id"],
                       "url": f"https://img.preloved-market.co.uk/{lst['listing_id'].lower()}/{pos}.jpg", "position": pos,
                       "caption": live.choice((None, None, "Front view", "Close-up of wear", "Box and accessories"))})
    while True:
        buyer = live.choice(active_ids)
        if buyer != seller:
            break
    ship, fee = shipping_for(weight), fee_for(price)
    order = {"order_id": ident("ORD", len(orders) + 1), "listing_id": lst["listing_id"], "buyer_id": buyer,
             "seller_id": seller, "offer_id": None, "item_price_pence": price, "shipping_pence": ship,
             "protection_fee_pence": fee, "total_pence": price + ship + fee,
             "status": "delivered" if recent else "completed", "created_on": day(created), "paid_on": day(created),
             "shipped_on": day(created + 1), "delivered_on": day(created + 3),
             "completed_on": None if recent else day(created + live.randint(3, 6))}
    orders.append(order)
    order_by_id[order["order_id"]] = order
    payments.append({"payment_id": ident("PAY", len(payments) + 1), "order_id": order["order_id"],
                     "method": live.choice(("card", "card", "card", "wallet", "bank_transfer")),
                     "amount_pence": order["total_pence"], "refunded_pence": 0,
                     "released_pence": 0 if recent else price + ship, "status": "held" if recent else "released",
                     "held_on": order["paid_on"], "settled_on": order["completed_on"]})
    carrier = live.choice(("royal_mail", "evri", "dpd", "inpost"))
    new_label(order, "outbound", carrier, "delivered", day(created + 1), weight)
    if recent:
        continue
    for reviewer, reviewee, chance in ((buyer, seller, 0.8), (seller, buyer, 0.45)):
        if live.random() < chance:
            stars = live.choices((5, 4, 3, 2, 1), weights=(62, 24, 8, 4, 2))[0] if reviewer == buyer else live.choice((5, 5, 4))
            reviews.append({"review_id": ident("REV", len(reviews) + 1), "order_id": order["order_id"],
                            "reviewer_id": reviewer, "reviewee_id": reviewee, "stars": stars,
                            "comment": review_text(stars, order, reviewer == buyer), "created_on": order["completed_on"]})
            member_by_id[reviewee]["rating_total"] += stars
            member_by_id[reviewee]["rating_count"] += 1

# the shop window: items on sale today, some of them the same product as another seller's
for k in range(40):
    seller = live.choice(active_ids)
    cat, title, base, weight = live.choice(catalogue)
    cond = live.choices(CONDITIONS, weights=(8, 30, 40, 17, 5))[0]
    factor = {"new_with_tags": 1.0, "like_new": 0.85, "good": 0.7, "fair": 0.5, "for_parts": 0.25}[cond]
    price = max(100, int(round(base * factor * live.uniform(0.9, 1.1) / 50.0)) * 50)
    if not member_by_id[seller]["id_verified"]:
        price = min(price, 25000)
    created = -live.randint(1, 60)
    lst = {"listing_id": ident("LST", len(listings) + 1), "seller_id": seller, "title": title,
           "description": " ".join(x for x in (f"{title}.", live.choice(CONDITION_TEXT[cond]), live.choice(EXTRAS),
                                                f"Collection from {member_by_id[seller]['city']} or posted.") if x),
           "category": cat, "item_condition": cond, "price_pence": price, "accepts_offers": 1 if live.random() < 0.8 else 0,
           "weight_grams": weight, "status": "active", "created_on": day(created), "published_on": day(created)}
    listings.append(lst)
    for pos in range(1, live.randint(1, 6) + 1):
        photos.append({"photo_id": ident("PHO", len(photos) + 1), "listing_id": lst["listing_id"],
                       "url": f"https://img.preloved-market.co.uk/{lst['listing_id'].lower()}/{pos}.jpg", "position": pos,
                       "caption": live.choice((None, None, "Front view", "Close-up of wear", "Label and size"))})

# ----------------------------------------------------------------------------- the shape of a live marketplace
# A third generator, so every row above keeps its values; this pass only changes values of existing
# rows (no row is added or removed, so the ids the tests name stay put).
shape = random.Random(SEED + 2)
test_named = {"LST-00001", "LST-00002", "LST-00003", "LST-00004", "LST-00005", "LST-00006", "LST-00007", "LST-00008",
              "LST-00009", "LST-00010", "LST-00011", "LST-00013", "LST-00015", "LST-00017", "LST-00018", "LST-00019",
              "LST-00024", "LST-00025", "LST-00026", "LST-00029", "LST-00031", "LST-00036", "LST-00038", "LST-00042",
              "LST-00043", "LST-00044", "LST-00045", "LST-00046", "LST-00047", "LST-00052", "LST-00055", "LST-00059",
              "LST-00060", "LST-00066", "LST-00070", "LST-00071", "LST-00072", "LST-00073", "LST-00076", "LST-00086",
              "LST-00087", "LST-00090", "LST-00100", "LST-00106", "LST-00107", "LST-00110", "LST-00112", "LST-00115",
              "LST-00123", "LST-00126", "LST-00127", "LST-00128", "LST-00132", "LST-00133", "LST-00136", "LST-00146",
              "LST-00150", "LST-00155", "LST-00161", "LST-00163", "LST-00167", "LST-00172", "LST-00185", "LST-00187",
              "LST-00211", "LST-00213", "LST-00217", "LST-00218", "LST-00220", "LST-00233", "LST-00242", "LST-00254",
              "LST-00259", "LST-00261", "LST-00262", "LST-00265"}

# the same product from a few sellers is a good look-alike; ten of one product is a catalogue, so beyond
# four listings of one title the others are a similar item of the same kind, price and weight
SIMILAR = {
    "Bose SoundLink Flex speaker": ("JBL Flip 5 speaker blue", "Ultimate Ears Wonderboom 3 speaker", "Marshall Emberton speaker black"),
    "Ottolenghi Simple cookbook hardback": ("Nigella Lawson Cook, Eat, Repeat hardback", "Dishoom cookbook hardback", "Rick Stein India cookbook hardback"),
    "Smeg kettle pastel blue": ("Smeg toaster 2 slice cream", "Dualit Classic kettle chrome", "Bodum Bistro kettle red"),
    "Vinyl bundle 1970s rock 25 LPs": ("Vinyl bundle 1980s pop 20 LPs", "Jazz vinyl collection 15 LPs", "Beatles vinyl LPs set of 6"),
    "Fender Player Stratocaster sunburst": ("Fender Player Telecaster butterscotch", "Gibson Les Paul Studio ebony", "PRS SE Custom 24 blue"),
    "Habitat velvet armchair green": ("Made.com velvet armchair mustard", "Loaf linen armchair oatmeal", "IKEA Strandmon wing chair grey"),
    "Apple iPad Air 4th gen 64GB": ("Apple iPad 9th gen 64GB", "Samsung Galaxy Tab S7 128GB", "Apple iPad mini 6 64GB"),
    "Ottolenghi Jerusalem cookbook hardback": ("Ottolenghi Plenty hardback", "Mary Berry Baking Bible hardback", "Jamie Oliver 5 Ingredients hardback"),
    "Hot Wheels track builder set": ("Scalextric Formula 1 starter set", "Hot Wheels Ultimate Garage", "Paw Patrol lookout tower"),
    "Sony WH-1000XM5 noise cancelling headphones": ("Bose QuietComfort 45 headphones", "Sennheiser Momentum 4 headphones", "Apple AirPods Max silver"),
    "IKEA Kallax 4x4 shelving unit white": ("IKEA Billy bookcase white", "IKEA Hemnes bookcase white stain", "John Lewis oak bookcase"),
    "Carrera Subway 1 hybrid bike M": ("Boardman MTX 8.6 hybrid bike M", "Specialized Sirrus 2.0 hybrid bike L", "Trek FX 2 hybrid bike M"),
    "Garmin Forerunner 245": ("Garmin Forerunner 55", "Fitbit Charge 5", "Apple Watch SE 40mm"),
    "Nintendo Switch OLED white": ("Nintendo Switch neon red and blue", "PlayStation 4 Slim 500GB", "Xbox Series S 512GB"),
    "Le Creuset cast iron casserole 20cm cerise": ("Le Creuset shallow casserole 26cm volcanic", "Staub cocotte 24cm grey", "Le Creuset stoneware baking dish set"),
    "IKEA Kallax 2x4 shelving unit black": ("IKEA Kallax 1x4 shelving unit white", "IKEA Lack wall shelf black", "IKEA Eket cabinet set grey"),
    "Mid-century oak sideboard": ("G Plan teak sideboard", "Mid-century walnut chest of drawers", "Ercol Windsor sideboard"),
    "Fender Squier Stratocaster sunburst": ("Yamaha Pacifica 112V sunburst", "Epiphone Les Paul Special cherry", "Squier Affinity Telecaster black"),
    "North Face Nuptse puffer jacket L": ("Patagonia Down Sweater jacket L", "Arc'teryx Atom hoody M", "Rab Microlight Alpine jacket L"),
    "Ukulele soprano Kala KA-15S": ("Ukulele concert Martin Smith", "Yamaha C40 classical guitar", "Hohner Special 20 harmonica set"),
    "Callaway Strata golf set": ("Wilson Prostaff golf set", "TaylorMade Stealth driver", "Ping G425 iron set"),
    "Nespresso Vertuo Next coffee machine": ("De'Longhi Dedica espresso machine", "Sage Bambino coffee machine", "Nespresso Essenza Mini"),
    "Boss Katana 50 MkII amp": ("Fender Mustang LT25 amp", "Vox AC10 combo amp", "Marshall MG15 amp"),
    "LEGO Millennium Falcon 75192 UCS sealed": ("LEGO Star Destroyer 75252 UCS sealed", "LEGO Titanic 10294 sealed", "LEGO Colosseum 10276 complete"),
    "Apple iPad Air 5th gen 64GB": ("Apple iPad Pro 11 2021 128GB", "Apple iPad Air 5th gen 256GB", "Microsoft Surface Go 3"),
    "Peloton weights set 3lb": ("Adjustable dumbbells 2 x 10kg", "Kettlebell 12kg cast iron", "Resistance bands set of 5"),
    "Penguin Modern Classics bundle of 10": ("Agatha Christie paperbacks bundle of 12", "Folio Society Jane Austen set", "Philip Pullman His Dark Materials box set"),
    "Pine bedside table": ("Oak bedside table with drawer", "IKEA Malm bedside table white", "Painted pine chest of drawers"),
}
title_count: dict[str, int] = {}
renamed: dict[str, tuple[str, str]] = {}
for lst in sorted(listings, key=lambda l: (l["listing_id"] not in test_named, l["listing_id"])):
    title = lst["title"]
    title_count[title] = title_count.get(title, 0) + 1
    if title_count[title] <= 4 or title not in SIMILAR or lst["listing_id"] in test_named:
        continue
    new = SIMILAR[title][(title_count[title] - 5) % 3]
    renamed[lst["listing_id"]] = (title, new)
    lst["title"] = new
    lst["description"] = lst["description"].replace(title, new, 1)
for o in orders:
    if o["listing_id"] in renamed:
        old, new = renamed[o["listing_id"]]
        for r in reviews:
            if r["order_id"] == o["order_id"]:
                r["comment"] = r["comment"].replace(short(old), short(new))
        for d in disputes:
            if d["order_id"] == o["order_id"]:
                d["description"] = d["description"].replace(short(old), short(new))
for r in reports:
    if r["listing_id"] in renamed:
        old, new = renamed[r["listing_id"]]
        r["details"] = r["details"].replace(short(old), short(new))

# orders: buyers confirm delivery within a few days, so few delivered orders wait in escrow
for oid in ("ORD-00039", "ORD-00040", "ORD-00041", "ORD-00042", "ORD-00043", "ORD-00044", "ORD-00090", "ORD-00095"):
    o = order_by_id[oid]
    o["status"] = "completed"
    o["completed_on"] = min(TODAY, date.fromisoformat(o["delivered_on"]) + timedelta(days=shape.randint(1, 2))).isoformat()
    pay = next(p for p in payments if p["order_id"] == oid)
    pay["status"], pay["released_pence"], pay["settled_on"] = "released", o["item_price_pence"] + o["shipping_pence"], o["completed_on"]
    listing_by_id[o["listing_id"]]["status"] = "sold"

# offers: most offers are answered or lapse; few are still waiting for the seller
for oid, status in (("OFR-00009", "declined"), ("OFR-00017", "expired"), ("OFR-00023", "declined"),
                    ("OFR-00031", "expired"), ("OFR-00035", "declined")):
    off = next(x for x in offers if x["offer_id"] == oid)
    off["status"] = status
    if status == "expired":
        created = -shape.randint(4, 9)
        off["created_on"], off["expires_on"] = day(created), day(created + 2)

# reports: the trust and safety team clears most reports within a few days
for rid, status in (("RPT-00015", "dismissed"), ("RPT-00021", "dismissed"), ("RPT-00022", "dismissed"),
                    ("RPT-00028", "upheld"), ("RPT-00030", "upheld"), ("RPT-00033", "dismissed")):
    r = next(x for x in reports if x["report_id"] == rid)
    r["status"] = status
    r["reviewed_on"] = min(TODAY, date.fromisoformat(r["created_on"]) + timedelta(days=shape.randint(1, 3))).isoformat()

REPORT_DETAILS = {
    "prohibited_item": ("Listing appears to include a replica weapon, which is not allowed.",
                        "Pictures show an item that is banned on the site.", "This looks like a recalled product.",
                        "The {item} comes with a battery pack that looks swollen in photo 2.",
                        "Description says the {item} is sold with an air rifle scope."),
    "counterfeit": ("Photos look like a copy, the logo is wrong.", "Price is far too low for a genuine {item}.",
                    "The tag on the {item} is a known fake design.", "Font on the box of the {item} is off compared with the real one.",
                    "Seller has several of these, all sealed and half price. Fakes, surely?",
                    "Serial plate in the third photo looks edited."),
    "scam": ("Seller asked me to pay by bank transfer outside the app.", "Seller sent me a link to pay on another website.",
             "Same photos as another listing under a different name.",
             "Wants a PayPal friends and family deposit before posting the {item}.",
             "Asked for my phone number, then texted me a fake courier link."),
    "offensive": ("Description contains abusive language.", "Seller's notes on the {item} are insulting.",
                  "The description mocks a previous buyer by name.", "Rude remarks about timewasters and worse in the text."),
    "wrong_category": ("This is listed in the wrong category.", "The {item} belongs under another category.",
                       "Keeps turning up in the wrong section when I search.", "Not the right category, it confuses the filters."),
}
REVIEW_NOTES = {
    ("prohibited_item", "dismissed"): ("Checked against the recall list; this model is not affected.",
                                       "Nothing banned in the photos or the description.", "Toy replica, allowed under the rules."),
    ("counterfeit", "dismissed"): ("Seller provided proof of purchase.", "Serial number checks out with the maker.",
                                   "Compared with the brand's photos; logo and stitching match.",
                                   "Low price reflects the condition; no sign of a fake."),
    ("scam", "dismissed"): ("No evidence of off-platform payment.", "Messages stay on the app; nothing suspicious.",
                            "Photos are the seller's own; nothing to act on.", "Reporter confused two similar listings; no action."),
    ("offensive", "dismissed"): ("Wording is blunt but not abusive.", "Read the description again; nothing insulting in it.",
                                 "Seller had already edited the text; nothing left to act on."),
    ("wrong_category", "dismissed"): ("Category is acceptable for this item.", "Item fits the chosen category well enough.",
                                      "A fair choice of category; left as it is.", "Borderline, but the category is not misleading."),
    ("offensive", "upheld"): ("Seller warned and the insulting line removed from the description.",
                              "Abusive wording confirmed; seller asked to reword the listing."),
    ("wrong_category", "upheld"): ("Moved to the right category and told the seller.", "Recategorised; seller informed by message."),
}
UPHELD_REMOVED = ("Listing breaks the prohibited items policy; removed.", "Confirmed breach; listing taken down.",
                  "Removed after checking the photos.", "Fake confirmed against the brand's guide; listing removed.",
                  "Off-platform payment request confirmed in messages; removed.")
used: dict[str, int] = {}


def next_line(lines: tuple[str, ...], key: str) -> str:
    """Lines in turn (from a shuffled start), so no sentence is written much more often than another."""
    if key not in used:
        used[key] = shape.randrange(len(lines))
    used[key] += 1
    return lines[used[key] % len(lines)]


for r in reports:
    item = short(listing_by_id[r["listing_id"]]["title"])
    if r["report_id"] not in ("RPT-00001", "RPT-00003", "RPT-00004", "RPT-00005"):
        r["details"] = next_line(REPORT_DETAILS[r["reason"]], r["reason"]).format(item=item)
    if r["report_id"] == "RPT-00004":
        continue
    if r["status"] == "dismissed":
        r["review_note"] = next_line(REVIEW_NOTES[(r["reason"], "dismissed")], r["reason"] + "/dismissed")
    elif r["status"] == "upheld" and r["reason"] in ("offensive", "wrong_category"):
        r["review_note"] = next_line(REVIEW_NOTES[(r["reason"], "upheld")], r["reason"] + "/upheld")
    elif r["status"] == "upheld":
        r["review_note"] = next_line(UPHELD_REMOVED, "removed")

# paid orders the seller has sat on for a few days: past the 2-day cancellation window of the policy
for oid, created in (("ORD-00021", -6), ("ORD-00026", -7), ("ORD-00027", -5), ("ORD-00025", -5),
                       ("ORD-00022", -4), ("ORD-00028", -6)):
    o = order_by_id[oid]
    o["created_on"], o["paid_on"] = day(created), day(created + 1)
    pay = next(p for p in payments if p["order_id"] == oid)
    pay["held_on"] = o["paid_on"]
    for lab in labels:
        if lab["order_id"] == oid:
            lab["created_on"] = day(created + 2)
# disputes opened in the last two days: the seller still has time to answer before anyone resolves them
next(d for d in disputes if d["dispute_id"] == "DSP-00011")["opened_on"] = day(0)
next(d for d in disputes if d["dispute_id"] == "DSP-00012")["opened_on"] = day(-1)

seed = {
    "members": members, "listings": listings, "listing_photos": photos, "offers": offers, "orders": orders,
    "escrow_payments": payments, "shipping_labels": labels, "disputes": disputes, "reviews": reviews,
    "saved_searches": saved, "reports": reports, "moderators": moderators,
}
if __name__ == "__main__":
    out = Path(__file__).with_name("seed.json")
    out.write_text(json.dumps(seed, indent=1, ensure_ascii=False) + "\n")
    print({k: len(v) for k, v in seed.items()}, sum(len(v) for v in seed.values()))
