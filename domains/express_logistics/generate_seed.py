"""Deterministic seed for the express_logistics domain: run `python generate_seed.py` to rewrite seed.json.

The world: a European express courier network on 2026-04-15 (the domain clock). Customers
(private senders and business accounts) have addresses, each served by a depot; depots are
linked by priced routes per service level; shipments are booked from rate quotes, paid,
picked up by couriers, scanned through depots, cleared through customs when they cross the
EU border, delivered, and sometimes claimed for. Every row is consistent with the rules the
tools enforce (prices from the route tariff, tracking history matching the status, account
balances matching account payments), and near neighbours exist on purpose (customers with
the same name, several shipments per customer in different states, twin depots in a city).
Most shipments are delivered, as in a live network: the current ones are joined by a history of
older deliveries. Staff (dispatchers per depot, customs officers, claims handlers) are the other
people the agent acts for; two dispatchers share a full name. Claim descriptions are the
claimants' own words, composed so that no text repeats.
"""

from __future__ import annotations

import json
import math
from datetime import date, datetime, timedelta
from pathlib import Path
from random import Random

RNG = Random(20260415)
TODAY = date(2026, 4, 15)
NOW = datetime(2026, 4, 15, 9, 30, 0)

EU = ("DE", "FR", "NL", "IT", "ES", "AT", "PL", "BE", "DK", "CZ", "PT", "IE")
RESIDENTIAL_SURCHARGE = 250
VOLUMETRIC_DIVISOR = 5000
LIABILITY_CENTS = 10000
DE_MINIMIS_CENTS = 15000
DUTY_PERCENT = 8

# city -> country, lat, lon, streets, postal code maker
CITIES = {
    "Berlin": ("DE", 52.52, 13.40, ["Torstraße", "Schönhauser Allee", "Kastanienallee", "Friedrichstraße",
                                      "Oranienstraße", "Invalidenstraße", "Bergmannstraße", "Boxhagener Straße"]),
    "Paris": ("FR", 48.86, 2.35, ["Rue de Rivoli", "Rue Oberkampf", "Boulevard Voltaire", "Rue de la Roquette",
                                   "Avenue Parmentier", "Rue du Faubourg Saint-Antoine", "Rue des Martyrs"]),
    "Amsterdam": ("NL", 52.37, 4.90, ["Prinsengracht", "Herengracht", "Overtoom", "Ferdinand Bolstraat",
                                       "Javastraat", "Kinkerstraat", "Haarlemmerdijk"]),
    "Milan": ("IT", 45.46, 9.19, ["Via Torino", "Corso Buenos Aires", "Via Paolo Sarpi", "Viale Monza",
                                   "Via Solferino", "Corso di Porta Ticinese"]),
    "Madrid": ("ES", 40.42, -3.70, ["Calle de Alcalá", "Gran Vía", "Calle de Fuencarral", "Calle de Atocha",
                                     "Paseo de la Castellana", "Calle de Embajadores"]),
    "London": ("GB", 51.51, -0.13, ["Brick Lane", "Camden High Street", "Upper Street", "Old Kent Road",
                                     "Kingsland Road", "Fulham Road", "Clerkenwell Road"]),
    "Zurich": ("CH", 47.37, 8.54, ["Langstrasse", "Bahnhofstrasse", "Seefeldstrasse", "Badenerstrasse",
                                    "Universitätstrasse", "Josefstrasse"]),
    "Hamburg": ("DE", 53.55, 9.99, ["Eppendorfer Weg", "Mönckebergstraße", "Schanzenstraße", "Osterstraße"]),
    "Lyon": ("FR", 45.76, 4.84, ["Rue de la République", "Cours Lafayette", "Rue Garibaldi", "Quai Saint-Vincent"]),
    "Manchester": ("GB", 53.48, -2.24, ["Deansgate", "Oxford Road", "Wilmslow Road", "Oldham Street"]),
    "Munich": ("DE", 48.14, 11.58, ["Leopoldstraße", "Sendlinger Straße", "Schellingstraße"]),
    "Vienna": ("AT", 48.21, 16.37, ["Mariahilfer Straße", "Praterstraße", "Neubaugasse"]),
}
UK_OUTCODES = {"London": ["E1", "N1", "NW1", "SE1", "SW6", "EC1V", "E8"], "Manchester": ["M1", "M4", "M14", "M15"]}

# depot_id order matters: a city's address goes to its lowest-numbered open depot
DEPOTS = [
    ("BER1", "Berlin Nord Hub", "Berlin", "open", 4200),
    ("PAR1", "Paris Nord Gonesse", "Paris", "open", 5200),
    ("AMS1", "Amsterdam Westpoort", "Amsterdam", "open", 3600),
    ("MIL1", "Milano Linate Cargo", "Milan", "open", 3400),
    ("MAD1", "Madrid Coslada", "Madrid", "open", 3300),
    ("LON1", "London Park Royal", "London", "open", 4800),
    ("ZRH1", "Zürich Altstetten", "Zurich", "open", 2100),
    ("HAM1", "Hamburg Billbrook", "Hamburg", "open", 2600),
    ("LYS1", "Lyon Saint-Priest", "Lyon", "open", 1900),
    ("MAN1", "Manchester Trafford Park", "Manchester", "open", 2200),
    ("BER2", "Berlin Süd Mariendorf", "Berlin", "closed", 1800),
    ("PAR2", "Paris Sud Orly", "Paris", "open", 2400),
    ("LON2", "London Heathrow Gateway", "London", "closed", 3000),
    ("MUC1", "München Freimann", "Munich", "open", 2500),
    ("VIE1", "Wien Inzersdorf", "Vienna", "open", 2000),
    ("WAW1", "Warszawa Okęcie", "Warsaw", "open", 1700),
    ("BRU1", "Brussels Vilvoorde", "Brussels", "open", 1600),
    ("BCN1", "Barcelona Zona Franca", "Barcelona", "open", 2300),
    ("OSL1", "Oslo Alnabru", "Oslo", "open", 1200),
    ("CPH1", "København Brøndby", "Copenhagen", "open", 1300),
    ("PRG1", "Praha Jažlovice", "Prague", "open", 1100),
    ("LIS1", "Lisboa Alverca", "Lisbon", "closed", 900),
    ("DUB1", "Dublin Ballycoolin", "Dublin", "closed", 1000),
    ("GVA1", "Genève Meyrin", "Geneva", "open", 900),
    ("FRA1", "Frankfurt Cargo City Süd", "Frankfurt", "open", 3900),
    ("CGN1", "Köln Eifeltor", "Cologne", "open", 2000),
    ("MRS1", "Marseille Vitrolles", "Marseille", "open", 1400),
    ("TRN1", "Torino Orbassano", "Turin", "open", 1200),
    ("ROM1", "Roma Fiumicino Cargo", "Rome", "open", 2100),
    ("RTM1", "Rotterdam Waalhaven", "Rotterdam", "open", 2700),
]
DEPOT_COUNTRY = {"Warsaw": "PL", "Brussels": "BE", "Barcelona": "ES", "Oslo": "NO", "Copenhagen": "DK",
                 "Prague": "CZ", "Lisbon": "PT", "Dublin": "IE", "Geneva": "CH", "Frankfurt": "DE",
                 "Cologne": "DE", "Marseille": "FR", "Turin": "IT", "Rome": "IT", "Rotterdam": "NL"}
CORE = ("BER1", "PAR1", "AMS1", "MIL1", "MAD1", "LON1", "ZRH1")
SPOKES = {"HAM1": ("BER1", "AMS1"), "LYS1": ("PAR1", "MIL1"), "MAN1": ("LON1", "AMS1")}

PERSONAL = [
    ("Lena Hoffmann", "Berlin"), ("Lena Hoffmann", "Hamburg"), ("Jonas Weber", "Berlin"), ("Mia Schulz", "Berlin"),
    ("Camille Dubois", "Paris"), ("Julien Martin", "Paris"), ("Julien Martin", "Lyon"), ("Chloé Lefèvre", "Paris"),
    ("Sanne de Vries", "Amsterdam"), ("Daan Visser", "Amsterdam"), ("Sophie Bakker", "Amsterdam"),
    ("Giulia Romano", "Milan"), ("Marco Rossi", "Milan"), ("Marco Rossi", "Milan"), ("Lucía Fernández", "Madrid"),
    ("Javier Morales", "Madrid"), ("Carmen Ruiz", "Madrid"), ("Oliver Bennett", "London"), ("Amelia Clarke", "London"),
    ("Harry Patel", "Manchester"), ("Priya Patel", "London"), ("Lukas Meier", "Zurich"), ("Anna Keller", "Zurich"),
    ("Noah Brunner", "Zurich"), ("Felix Wagner", "Munich"), ("Katharina Gruber", "Vienna"), ("Emma Jansen", "Amsterdam"),
    ("Thomas Müller", "Hamburg"),
]
BUSINESS = [
    ("Lena Hoffmann", "Hoffmann Feinkost GmbH", "Hamburg"), ("Stefan Braun", "Braun Fahrradteile GmbH", "Berlin"),
    ("Claire Moreau", "Atelier Moreau SARL", "Paris"), ("Pieter van Dijk", "Van Dijk Tulpen B.V.", "Amsterdam"),
    ("Alessandro Greco", "Greco Ceramiche S.r.l.", "Milan"), ("Elena Rinaldi", "Rinaldi Moda S.p.A.", "Milan"),
    ("Pablo Serrano", "Serrano Vinos S.L.", "Madrid"), ("Rachel Hughes", "Hughes & Finch Books Ltd", "London"),
    ("Daniel Finch", "Hughes & Finch Books Ltd", "London"), ("Martina Frei", "Frei Uhren AG", "Zurich"),
    ("Reto Steiner", "Steiner Optik AG", "Zurich"), ("Sophie Laurent", "Laurent Parfums SAS", "Lyon"),
    ("Tom Ashworth", "Ashworth Textiles Ltd", "Manchester"), ("Nadia Kowalski", "Nordlicht Elektronik GmbH", "Berlin"),
    ("Henrik Vos", "Vos Kaas B.V.", "Amsterdam"), ("Inés Navarro", "Navarro Cerámica S.L.", "Madrid"),
    ("Claire Moreau", "Moreau Papeterie SARL", "Paris"), ("Giorgio Bianchi", "Bianchi Caffè S.r.l.", "Milan"),
    ("Oliver Bennett", "Bennett Audio Ltd", "London"), ("Julia Sommer", "Sommer Naturkosmetik GmbH", "Berlin"),
]
SUSPENDED = {("Mia Schulz", None), ("Carmen Ruiz", None), ("Claire Moreau", "Moreau Papeterie SARL")}
PHONE_PREFIX = {"DE": "+49", "FR": "+33", "NL": "+31", "IT": "+39", "ES": "+34", "GB": "+44", "CH": "+41", "AT": "+43",
                "NO": "+47", "PL": "+48", "BE": "+32", "DK": "+45", "CZ": "+420"}

CONTENTS = {
    "personal": [("Books and photo albums", "490199", 4500), ("Winter clothing", "620293", 12000),
                 ("Vintage record player", "851981", 22000), ("Handmade quilt", "630419", 9000),
                 ("Board games", "950490", 6000), ("Kitchen knives set", "821192", 14000),
                 ("Bicycle helmet", "650610", 7000), ("Ceramic vase", "691390", 8000)],
    "Hoffmann Feinkost GmbH": [("Preserved delicatessen jars", "200599", 18000)],
    "Braun Fahrradteile GmbH": [("Bicycle derailleurs", "871499", 26000), ("Bicycle brake sets", "871494", 15000)],
    "Atelier Moreau SARL": [("Silk scarves", "621410", 32000)],
    "Van Dijk Tulpen B.V.": [("Tulip bulbs", "060110", 9000)],
    "Greco Ceramiche S.r.l.": [("Glazed ceramic tiles", "690721", 21000), ("Ceramic tableware", "691200", 16000)],
    "Rinaldi Moda S.p.A.": [("Leather handbags", "420221", 54000), ("Wool coats", "620231", 38000)],
    "Serrano Vinos S.L.": [("Red wine bottles", "220421", 14000)],
    "Hughes & Finch Books Ltd": [("Printed books", "490199", 8000), ("Antiquarian maps", "490591", 46000)],
    "Frei Uhren AG": [("Wristwatches", "910211", 120000), ("Watch straps", "911390", 9000)],
    "Steiner Optik AG": [("Spectacle lenses", "900150", 30000)],
    "Laurent Parfums SAS": [("Eau de parfum", "330300", 25000)],
    "Ashworth Textiles Ltd": [("Woven wool fabric", "511211", 17000)],
    "Nordlicht Elektronik GmbH": [("LED lighting modules", "940542", 28000), ("Circuit boards", "853400", 41000)],
    "Vos Kaas B.V.": [("Aged gouda wheels", "040690", 11000)],
    "Navarro Cerámica S.L.": [("Hand-painted tiles", "690790", 13000)],
    "Moreau Papeterie SARL": [("Stationery sets", "482050", 7000)],
    "Bianchi Caffè S.r.l.": [("Roasted coffee beans", "090121", 9500), ("Espresso machine parts", "841990", 23000)],
    "Bennett Audio Ltd": [("Studio headphones", "851830", 36000), ("Audio interfaces", "854370", 29000)],
    "Sommer Naturkosmetik GmbH": [("Natural skincare creams", "330499", 12000)],
}
FIRST_NAMES = ["Karim", "Sven", "Marta", "Tobias", "Léa", "Ruud", "Paolo", "Diego", "Callum", "Urs", "Nina",
               "Yusuf", "Ewa", "Bastian", "Inès", "Joost", "Chiara", "Álvaro", "Jack", "Simone", "Mehmet",
               "Greta", "Hugo", "Fenna", "Rocco", "Sergio", "Ella", "Beat", "Aylin", "Matteo", "Zoe", "Kai",
               "Pauline", "Rik", "Luca", "Raúl"]
LAST_NAMES = ["Aydın", "Lindqvist", "Nowak", "Krause", "Girard", "Mulder", "Conti", "Ortega", "Murray", "Huber",
              "Schmid", "Demir", "Zielińska", "Vogel", "Roux", "de Boer", "Ferrari", "Castro", "Reid", "Baumann",
              "Yılmaz", "Lang", "Petit", "Smit", "Marino", "Gil", "Walsh", "Frei", "Kaya", "Galli"]
FAILED_REASONS = ["Recipient not at home, card left", "Business closed at time of delivery",
                  "Access code to building not working", "Recipient refused to pay import charges"]


# -- a live deployment's texture (round 3): varied words, realistic status frequencies -----------
# Applied after the rows above are built, with their own random streams, so that every id stays put.
PERSONAL_REFERENCES = [
    "Sold on marketplace", "Moving boxes", "Birthday present", "Gift for grandma", "Return of borrowed items",
    "Vinted sale", "Books back to Anna", "Christmas leftovers", "Camera sold on eBay", "For Tom's new flat",
    "Kleinanzeigen order 5521", "Mum's winter things", "Returning the drill", "Wedding gift",
    "Stuff from the old flat", "Swap with cousin", "Uni books for Jule", "Parcel for Oma", "Marketplace #88213",
    "Spare keys and charger", "Housewarming present", "Board game swap", "Anniversary surprise",
]
BOOK_PARCELS = [
    "Books and photo albums", "Paperback novels and two photo albums", "Cookbooks and a family photo album",
    "Old university textbooks", "Children's picture books", "Comic books in plastic sleeves",
    "Art books and framed photos", "Photo albums and letters", "Novels and a wedding album",
    "Travel guides and maps",
]
PICKUP_RESCHEDULED = [
    "Sender not available in the morning", "Asked for an afternoon slot instead", "Parcel was not packed yet",
    "Nobody home before 2 pm", "Sender stuck at work, rebooked", "Courier could not find the entrance",
    "Customer asked to move the collection", "Label not printed in time", "Rebooked: sender at a doctor's appointment",
    "Gate closed when the courier came", "Sender asked for a later window by phone", "Box still being taped up",
    "Wrong floor given, rebooked with the right one", "Sender travelling until the afternoon",
    "Loading bay busy, asked to come back later", "Customer away on the school run", "Reception closed until lunch",
    "Goods not ready at the warehouse", "Rescheduled at the sender's request",
]
CAPPED_NOTES = [
    "Approved up to the standard liability cover", "Uninsured parcel: paid at the EUR 100 liability limit",
    "Capped at EUR 100 standard liability, no extra cover was bought",
    "Partly approved: standard liability applies without insurance", "Limited to standard cover of EUR 100",
]
PAID_NOTES = {
    "delay": ["Approved in full", "Late delivery confirmed by tracking, freight refunded",
              "Refunded the shipping charge for the missed date", "Compensated per tariff",
              "Delay verified against promised date, paid", "Freight charge returned to the card used"],
    "damage": ["Approved in full", "Damage confirmed from the photos, paid", "Invoice checked, value reimbursed",
               "Paid out after depot inspection report", "Courier report confirms breakage"],
}
REJECTED_NOTES = [
    "Packaging was insufficient for fragile contents", "No photos of the damage supplied",
    "Damage not reported at delivery", "Glass items packed without padding", "Recipient signed for it as undamaged",
    "Goods were used, not damaged in transit", "Photos show wear from before dispatch",
    "Contents excluded: perishable goods",
]
DELIVERY_NOTES = {
    "recipient": ["Received by recipient", "Received by {name}", "Received by {initial}. {surname}",
                  "Received by recipient at the door", "Received by {name}, signed"],
    "neighbour": ["Received by neighbour", "Received by neighbour at no. {n}", "Received by neighbour on floor {f}",
                  "Received by neighbour across the hall"],
    "reception": ["Received by reception desk", "Received by front desk", "Received by reception, signed {initial}.",
                  "Received by the office manager"],
    "concierge": ["Received by building concierge", "Received by concierge", "Received by the caretaker",
                  "Received by building concierge, logged", "Received by porter at the lodge"],
}


def iso(d: date) -> str:
    return d.isoformat()


def ts(d: date, hour: int, minute: int) -> str:
    return f"{d.isoformat()}T{hour:02d}:{minute:02d}:00"


def not_sunday(d: date) -> date:
    return d + timedelta(days=1) if d.weekday() == 6 else d


def distance_km(a: str, b: str) -> float:
    _, la1, lo1, _ = CITIES[a]
    _, la2, lo2, _ = CITIES[b]
    x = math.radians(lo2 - lo1) * math.cos(math.radians((la1 + la2) / 2))
    y = math.radians(la2 - la1)
    return 6371 * math.sqrt(x * x + y * y)


def postal_code(city: str) -> str:
    country = CITIES[city][0]
    r = RNG
    if country == "GB":
        return f"{r.choice(UK_OUTCODES[city])} {r.randint(1, 9)}{r.choice('ABDEFGHJLNPQRSTUWXYZ')}{r.choice('ABDEFGHJLNPQRSTUWXYZ')}"
    if country == "NL":
        return f"10{r.randint(11, 98)} {r.choice('ABCDEGHJKLMN')}{r.choice('ABCDEGHJKLMNPRSTVWXZ')}"
    if country == "CH":
        return f"80{r.randint(1, 57):02d}"
    if country == "AT":
        return f"1{r.randint(1, 23):02d}0"
    base = {"Berlin": (10115, 13599), "Hamburg": (20095, 22769), "Munich": (80331, 81929), "Paris": (75001, 75020),
            "Lyon": (69001, 69009), "Milan": (20121, 20162), "Madrid": (28001, 28050)}[city]
    return f"{r.randint(*base):05d}"


def slug_email(name: str) -> str:
    table = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "é": "e", "è": "e", "í": "i", "á": "a",
                           "ó": "o", "ú": "u", "ç": "c", "ë": "e", "ñ": "n", "ł": "l", "ı": "i"})
    return name.lower().translate(table).replace(" ", ".").replace("&", "").replace("'", "")


def chargeable(weight: float, length: int, width: int, height: int) -> int:
    return math.ceil(max(weight, length * width * height / VOLUMETRIC_DIVISOR))


def customs_required(c1: str, c2: str) -> int:
    return int(c1 != c2 and not (c1 in EU and c2 in EU))


def premium(insured: int) -> int:
    return max(300, math.ceil(insured * 15 / 1000))


def duty(declared: int) -> int:
    return declared * DUTY_PERCENT // 100 if declared > DE_MINIMIS_CENTS else 0


HISTORY_DELIVERIES = 56

CLAIM_OPENERS = {
    "damage": ["The {item} arrived damaged", "When we opened the box the {item} were damaged",
               "Our {item} came out of the carton broken", "Part of the {item} was unusable on arrival",
               "The {item} did not survive the trip"],
    "delay": ["The parcel of {item} arrived after the promised date", "Our {item} came late",
              "Delivery of the {item} missed the guaranteed day", "We paid for on-time delivery of the {item}"],
    "loss": ["The {item} never arrived", "Tracking for our {item} stopped and nothing came",
             "Nobody can tell us where the {item} are"],
}
CLAIM_DETAILS = {
    "damage": ["the outer carton was crushed on one corner", "the box was soaked through on one side",
               "two pieces were cracked and one scratched", "the tape had been cut and resealed",
               "a forklift puncture went straight through the side", "the padding had shifted to one end",
               "the label side was dented in", "glass fragments rattled inside when we picked it up",
               "the pallet wrap was torn and the top layer fell", "the courier left it in the rain by the door"],
    "delay": ["the event it was meant for had already passed", "our customer cancelled the order because of it",
              "we had to send a replacement by another carrier", "the shop opening went ahead without it",
              "it was a birthday present and arrived three days after", "the tracking showed it sitting at the depot",
              "we missed a trade fair deadline", "the recipient had already left for holiday"],
    "loss": ["the last scan shows it leaving the origin depot", "the depot says it was never unloaded",
             "the recipient has waited more than two weeks", "no one at the hotline could locate it",
             "we have had to refund our customer in the meantime"],
}
CLAIM_ASKS = ["Please refund the declared value.", "We are asking for compensation.", "Photos are attached.",
              "The invoice is attached for the value.", "Please call back on the number on the account.",
              "We would like this settled quickly.", "", "", ""]
STAFF_FIRST = ["Anja", "Bruno", "Céline", "Dirk", "Elif", "Fabio", "Gemma", "Hanna", "Ivo", "Jana", "Kevin",
               "Laura", "Mathis", "Nora", "Omar", "Petra", "Quentin", "Rosa", "Sami", "Tessa", "Ugo", "Vera",
               "Wouter", "Xenia", "Yann", "Zofia", "Arjen", "Bea", "Cem", "Dora"]
STAFF_LAST = ["Albers", "Bauer", "Costa", "Dekker", "Engel", "Fischer", "Garnier", "Hansen", "Iglesias", "Jovanović",
              "Kühn", "Leroy", "Moretti", "Nielsen", "Oliveira", "Peeters", "Quint", "Rossi", "Sauer", "Teixeira",
              "Urban", "Vidal", "Winter", "Zimmer", "Brandt", "Colin", "Esposito", "Haas"]


def claim_text(rng: Random, claim_type: str, item: str, resubmitted: bool) -> str:
    """A claimant's own description: what arrived (or did not), a detail, sometimes what they ask for."""
    text = f"{rng.choice(CLAIM_OPENERS[claim_type]).format(item=item)}: {rng.choice(CLAIM_DETAILS[claim_type])}."
    ask = rng.choice(CLAIM_ASKS)
    if resubmitted:
        text = f"Resubmitting with photos. {text}"
    return f"{text} {ask}".strip()


def make_staff(rng: Random, depots: list[dict], couriers: list[dict]) -> list[dict]:
    """Operations staff: dispatchers at every depot that runs couriers, customs officers and claims handlers.

    Two dispatchers share a full name on purpose (at different depots), so a name alone is not enough.
    """
    crewed = sorted({c["depot_id"] for c in couriers})
    open_depots = [d for d in depots if d["status"] == "open" and d["depot_id"] not in crewed]
    plan = [(d, "dispatcher") for d in crewed for _ in range(2)]
    plan += [(d["depot_id"], "dispatcher") for d in open_depots[:4]]
    gateways = [d["depot_id"] for d in depots if d["code"] in ("LON1", "ZRH1", "MAN1", "OSL1", "GVA1", "FRA1")]
    plan += [(d, "customs_officer") for d in gateways] + [(gateways[0], "customs_officer")]
    hq = next(d["depot_id"] for d in depots if d["code"] == "FRA1")
    plan += [(hq, "claims_handler")] * 5 + [(next(d["depot_id"] for d in depots if d["code"] == "AMS1"), "claims_handler")] * 2
    country = {d["depot_id"]: d["country"] for d in depots}
    staff, used = [], set()
    for i, (depot_id, role) in enumerate(plan, start=1):
        while True:
            name = f"{rng.choice(STAFF_FIRST)} {rng.choice(STAFF_LAST)}"
            if name not in used:
                break
        used.add(name)
        staff.append({"staff_id": f"STF-{i:05d}", "name": name, "email": "", "phone": "", "role": role,
                      "depot_id": depot_id})
    staff[9]["name"] = staff[2]["name"]  # the same name at another depot
    emails = set()
    for row in staff:
        base = slug_email(row["name"])
        email = f"{base}@expresslogistics.eu"
        if email in emails:
            email = f"{base}.{row['staff_id'][-2:]}@expresslogistics.eu"
        emails.add(email)
        row["email"] = email
        prefix = PHONE_PREFIX.get(country[row["depot_id"]], "+49")
        row["phone"] = f"{prefix} {rng.randint(150, 179)} {rng.randint(1000000, 9999999)}"
    return staff


def main() -> None:
    r = RNG
    seed: dict[str, list[dict]] = {t: [] for t in (
        "customers", "depots", "addresses", "routes", "couriers", "rate_quotes", "shipments", "parcels",
        "tracking_events", "pickups", "customs_declarations", "claims", "staff")}

    # -- depots ---------------------------------------------------------------------------------
    depot_ids: dict[str, str] = {}
    depot_city: dict[str, str] = {}
    for i, (code, name, city, status, cap) in enumerate(DEPOTS, start=1):
        did = f"DEP-{i:05d}"
        depot_ids[code] = did
        depot_city[did] = city
        country = CITIES[city][0] if city in CITIES else DEPOT_COUNTRY[city]
        seed["depots"].append({"depot_id": did, "code": code, "name": name, "city": city, "country": country,
                               "status": status, "daily_capacity": cap})
    city_depot = {}
    for d in seed["depots"]:
        if d["status"] == "open" and d["city"] not in city_depot:
            city_depot[d["city"]] = d["depot_id"]

    # -- routes ---------------------------------------------------------------------------------
    routes: dict[tuple[str, str, str], dict] = {}

    def add_route(o: str, d: str, level: str) -> None:
        oc, dc = depot_city[depot_ids[o]], depot_city[depot_ids[d]]
        km = distance_km(oc, dc)
        std_days = 1 if km < 50 else min(5, 1 + math.ceil(km / 650))
        base = 890 + int(km * 0.55) // 10 * 10
        per_kg = 45 + int(km / 30)
        if customs_required(CITIES[oc][0], CITIES[dc][0]):
            base += 600
            std_days += 1
        if level == "express":
            days, base, per_kg = max(1, std_days - 2), base * 18 // 10 // 10 * 10, per_kg * 3 // 2
        elif level == "economy":
            days, base, per_kg = std_days + 2, base * 3 // 4 // 10 * 10, per_kg * 3 // 4
        else:
            days = std_days
        routes[(o, d, level)] = {"origin_depot_id": depot_ids[o], "destination_depot_id": depot_ids[d],
                                 "service_level": level, "transit_days": min(days, 10), "base_cents": base,
                                 "per_kg_cents": per_kg, "status": "active"}

    for o in CORE:
        add_route(o, o, "standard")
        add_route(o, o, "express")
        for d in CORE:
            if o != d:
                add_route(o, d, "standard")
    pairs = [(o, d) for o in CORE for d in CORE if o != d]
    r.shuffle(pairs)
    for o, d in pairs[:16]:
        add_route(o, d, "express")
    for o, d in pairs[16:28]:
        add_route(o, d, "economy")
    for spoke, hubs in SPOKES.items():
        for hub in hubs:
            add_route(spoke, hub, "standard")
            add_route(hub, spoke, "standard")
    ordered = sorted(routes.items(), key=lambda kv: (CORE.index(kv[0][0]) if kv[0][0] in CORE else 9, kv[0][0],
                                                     kv[0][1], kv[0][2]))
    route_by_key = {}
    for i, (key, row) in enumerate(ordered, start=1):
        row = {"route_id": f"RTE-{i:05d}", **row}
        seed["routes"].append(row)
        route_by_key[(row["origin_depot_id"], row["destination_depot_id"], row["service_level"])] = row
    suspended_routes = [("MAD1", "ZRH1", "standard"), ("LYS1", "MIL1", "standard")]
    for o, d, lvl in suspended_routes:
        route_by_key[(depot_ids[o], depot_ids[d], lvl)]["status"] = "suspended"

    # -- customers and addresses ----------------------------------------------------------------
    people = [(n, None, c) for n, c in PERSONAL] + list(BUSINESS)
    order = list(range(len(people)))
    r.shuffle(order)
    customers = []
    used_emails = set()
    for idx, pi in enumerate(order, start=1):
        name, company, city = people[pi]
        country = CITIES[city][0]
        cid = f"CUS-{idx:05d}"
        if company:
            domain = slug_email(company.split(" ")[0] + company.split(" ")[1 if len(company.split()) > 2 else 0])
            domain = domain.replace(".", "") + {"DE": ".de", "FR": ".fr", "NL": ".nl", "IT": ".it", "ES": ".es",
                                                "GB": ".co.uk", "CH": ".ch", "AT": ".at"}[country]
            email = f"{slug_email(name.split()[0])}@{domain}"
        else:
            provider = r.choice(["mailbox.org", "posteo.net", "gmx.net", "proton.me", "outlook.com", "web.de"])
            email = f"{slug_email(name)}@{provider}"
            if email in used_emails:
                email = f"{slug_email(name)}{r.randint(70, 99)}@{provider}"
        used_emails.add(email)
        phone = f"{PHONE_PREFIX[country]} {r.randint(20, 99)} {r.randint(100, 999)} {r.randint(1000, 9999)}"
        status = "suspended" if (name, company) in SUSPENDED else "active"
        limit = r.choice([150000, 250000, 400000, 600000, 1000000]) if company else 0
        created = TODAY - timedelta(days=r.randint(60, 900))
        customers.append({"customer_id": cid, "name": name, "company": company, "email": email, "phone": phone,
                          "account_type": "business" if company else "personal", "status": status,
                          "credit_limit_cents": limit, "account_balance_cents": 0, "created_on": iso(created)})
    seed["customers"] = customers
    home_city = {c["customer_id"]: people[order[i]][2] for i, c in enumerate(customers)}

    addresses = []
    used_lines = set()

    def new_address(cid: str, label: str, city: str, residential: int, status: str = "active") -> dict:
        street = r.choice(CITIES[city][3])
        while True:
            line1 = f"{street} {r.randint(2, 180)}" if CITIES[city][0] not in ("GB", "FR", "ES", "IT") else (
                f"{r.randint(2, 180)} {street}" if CITIES[city][0] == "GB" else
                f"{r.randint(2, 120)} {street}" if CITIES[city][0] == "FR" else f"{street}, {r.randint(2, 150)}")
            if line1 not in used_lines:
                break
        used_lines.add(line1)
        if label in ("Warehouse", "Studio", "Shop"):
            line1 = f"{line1}, {'Unit' if CITIES[city][0] == 'GB' else 'Hof'} {r.randint(1, 9)}" if CITIES[city][0] in ("GB", "DE") else line1
        row = {"address_id": f"ADR-{len(addresses) + 1:05d}", "customer_id": cid, "label": label, "line1": line1,
               "city": city, "postal_code": postal_code(city), "country": CITIES[city][0],
               "depot_id": city_depot[city], "is_residential": residential, "status": status}
        addresses.append(row)
        return row

    for c in customers:
        city = home_city[c["customer_id"]]
        if c["account_type"] == "business":
            new_address(c["customer_id"], "Head office", city, 0)
            if r.random() < 0.6:
                new_address(c["customer_id"], "Warehouse", city, 0)
            if r.random() < 0.2:
                new_address(c["customer_id"], "Shop", city, 0, "archived")
        else:
            new_address(c["customer_id"], "Home", city, 1)
            roll = r.random()
            if roll < 0.35:
                other = r.choice(["Berlin", "Paris", "Amsterdam", "Milan", "Madrid", "London", "Zurich"])
                new_address(c["customer_id"], "Work", city if roll < 0.2 else other, 0)
            elif roll < 0.5:
                new_address(c["customer_id"], "Old flat", city, 1, "archived")
            if r.random() < 0.15:
                new_address(c["customer_id"], "Parents", r.choice(["Hamburg", "Lyon", "Munich", "Milan"]), 1)
    seed["addresses"] = addresses

    # -- couriers -------------------------------------------------------------------------------
    couriers = []
    names_used = set()
    plan = {"BER1": 5, "PAR1": 5, "AMS1": 4, "MIL1": 4, "MAD1": 4, "LON1": 5, "ZRH1": 3, "HAM1": 2, "LYS1": 2,
            "MAN1": 2, "BER2": 1, "PAR2": 1, "FRA1": 1, "MUC1": 1}
    for code, n in plan.items():
        for k in range(n):
            while True:
                nm = f"{r.choice(FIRST_NAMES)} {r.choice(LAST_NAMES)}"
                if nm not in names_used:
                    break
            names_used.add(nm)
            vehicle = ["van", "cargo_bike", "van", "truck", "van"][k % 5]
            load = {"cargo_bike": 60.0, "van": float(r.choice([650, 800, 900, 1100])), "truck": 3500.0}[vehicle]
            status = "off_duty" if code == "BER2" else r.choice(["available", "available", "available", "off_duty"])
            country = seed["depots"][int(depot_ids[code][4:]) - 1]["country"]
            couriers.append({"courier_id": f"COU-{len(couriers) + 1:05d}", "name": nm, "depot_id": depot_ids[code],
                             "vehicle_type": vehicle, "max_load_kg": load,
                             "phone": f"{PHONE_PREFIX.get(country, '+49')} {r.randint(150, 179)} {r.randint(1000000, 9999999)}",
                             "status": status})
    # a twin name on purpose: two couriers called the same at different depots
    couriers[12]["name"] = couriers[2]["name"]
    seed["couriers"] = couriers

    def depot_couriers(did: str, usable: bool = True) -> list[dict]:
        return [c for c in couriers if c["depot_id"] == did and (not usable or c["status"] != "off_duty")]

    # -- shipments ------------------------------------------------------------------------------
    cust = {c["customer_id"]: c for c in customers}
    active_addr = [a for a in addresses if a["status"] == "active"]
    network = {depot_ids[c] for c in (*CORE, *SPOKES)}
    plan_status = (["awaiting_payment"] * 6 + ["booked"] * 10 + ["picked_up"] * 4 + ["in_transit"] * 9
                   + ["held_customs"] * 3 + ["out_for_delivery"] * 4 + ["delivered"] * 32 + ["return_to_sender"] * 3
                   + ["lost"] * 3 + ["cancelled"] * 4)
    r.shuffle(plan_status)
    # one customer with many shipments in different states (near neighbours)
    frequent = next(c for c in customers if c["company"] == "Braun Fahrradteile GmbH")["customer_id"]
    frequent2 = next(c for c in customers if c["name"] == "Camille Dubois")["customer_id"]

    quotes, shipments, parcels, events, pickups, declarations, claims = [], [], [], [], [], [], []
    counters = {"QUO": 0, "SHP": 0, "PCL": 0, "TRK": 0, "PCK": 0, "CDC": 0, "CLM": 0}

    def nid(prefix: str) -> str:
        counters[prefix] += 1
        return f"{prefix}-{counters[prefix]:05d}"

    def pick_pair(status: str, k: int):
        for _ in range(500):
            if k % 5 == 0:
                sender_id = frequent
            elif k % 7 == 0:
                sender_id = frequent2
            else:
                sender_id = r.choice(customers)["customer_id"]
            s = cust[sender_id]
            if s["status"] != "active":
                continue
            o = [a for a in active_addr if a["customer_id"] == sender_id and a["depot_id"] in network]
            if not o:
                continue
            oa = r.choice(o)
            ra = r.choice([a for a in active_addr if a["customer_id"] != sender_id and a["depot_id"] in network])
            need_customs = customs_required(oa["country"], ra["country"])
            if status == "held_customs" and not need_customs:
                continue
            if status in ("delivered", "in_transit") and not need_customs and r.random() < 0.3:
                continue
            levels = [lvl for lvl in ("standard", "express", "economy")
                      if (oa["depot_id"], ra["depot_id"], lvl) in route_by_key
                      and route_by_key[(oa["depot_id"], ra["depot_id"], lvl)]["status"] == "active"]
            if not levels:
                continue
            lvl = r.choice(levels + ["standard"] * 2) if "standard" in levels else levels[0]
            return s, oa, ra, route_by_key[(oa["depot_id"], ra["depot_id"], lvl)]
        raise RuntimeError("no pair")

    def event(sid: str, kind: str, depot: str | None, at: str, note: str | None = None) -> None:
        events.append({"event_id": "", "shipment_id": sid, "event_type": kind, "depot_id": depot,
                       "occurred_at": at, "note": note})

    account_spend: dict[str, int] = {}
    def build(k: int, status: str, history: bool = False) -> None:
        """One shipment in ``status`` with its quote, parcels, events, pickups and declarations; ``history``: an
        older delivery, created 31-150 days ago (before the current account period)."""
        s, oa, ra, route = pick_pair(status, k)
        sid = nid("SHP")
        # creation date by status
        if status == "awaiting_payment":
            created = TODAY - timedelta(days=r.choice([0, 1, 2, 7]))
        elif status == "booked":
            created = TODAY - timedelta(days=r.choice([0, 1, 2, 3]))
        elif status == "picked_up":
            created = TODAY - timedelta(days=r.choice([2, 3]))
        elif status in ("in_transit", "held_customs", "out_for_delivery"):
            created = TODAY - timedelta(days=r.choice([3, 4, 5]) + route["transit_days"])
            if status == "in_transit" and k % 3 == 0:
                created = TODAY - timedelta(days=r.randint(14, 24))  # stale: candidates for a loss report
        elif status == "cancelled":
            created = TODAY - timedelta(days=r.randint(1, 40))
        elif status == "lost":
            created = TODAY - timedelta(days=r.randint(25, 60))
        elif status == "return_to_sender":
            created = TODAY - timedelta(days=r.randint(12 + route["transit_days"], 50))
        else:
            created = TODAY - timedelta(days=r.randint(6 + route["transit_days"], 80))
            if history:
                created = TODAY - timedelta(days=r.randint(31, 150))
        created = not_sunday(created) if created < TODAY else created
        # parcels
        ctype = "personal" if s["account_type"] == "personal" else s["company"]
        item, hs, value = r.choice(CONTENTS[ctype])
        n_parcels = 1 if s["account_type"] == "personal" else r.choice([1, 1, 2, 3])
        plist = []
        for _ in range(n_parcels):
            if s["account_type"] == "personal":
                dims = r.choice([(30, 20, 15), (40, 30, 20), (50, 40, 30), (60, 40, 40), (35, 25, 10)])
                w = round(r.uniform(0.6, 12.0), 1)
            else:
                dims = r.choice([(40, 30, 30), (60, 40, 40), (80, 60, 40), (120, 80, 50), (50, 50, 50)])
                w = round(r.uniform(3.0, 31.5), 1)
            v = int(value * r.uniform(0.6, 1.4)) // 100 * 100
            plist.append({"parcel_id": nid("PCL"), "shipment_id": sid, "weight_kg": w, "length_cm": dims[0],
                          "width_cm": dims[1], "height_cm": dims[2], "contents": item, "declared_value_cents": v})
        parcels.extend(plist)
        surcharge = RESIDENTIAL_SURCHARGE if ra["is_residential"] else 0
        ch_first = chargeable(plist[0]["weight_kg"], plist[0]["length_cm"], plist[0]["width_cm"], plist[0]["height_cm"])
        ch_all = sum(chargeable(p["weight_kg"], p["length_cm"], p["width_cm"], p["height_cm"]) for p in plist)
        q_price = route["base_cents"] + route["per_kg_cents"] * ch_first + surcharge
        price = route["base_cents"] + route["per_kg_cents"] * ch_all + surcharge
        qid = nid("QUO")
        q_created = created - timedelta(days=r.choice([0, 0, 1, 2, 4]))
        quotes.append({"quote_id": qid, "customer_id": s["customer_id"], "origin_address_id": oa["address_id"],
                       "destination_address_id": ra["address_id"], "route_id": route["route_id"],
                       "service_level": route["service_level"], "weight_kg": plist[0]["weight_kg"],
                       "length_cm": plist[0]["length_cm"], "width_cm": plist[0]["width_cm"],
                       "height_cm": plist[0]["height_cm"], "chargeable_weight_kg": ch_first, "price_cents": q_price,
                       "created_on": iso(q_created), "valid_until": iso(q_created + timedelta(days=7)),
                       "status": "used"})
        declared_total = sum(p["declared_value_cents"] for p in plist)
        insured = 0
        if r.random() < 0.3 and status != "awaiting_payment":
            insured = min(declared_total, r.choice([20000, 30000, 50000, 100000, 150000]))
        prem = premium(insured) if insured else 0
        cust_req = customs_required(oa["country"], ra["country"])
        paid = 0 if status == "awaiting_payment" else price + prem
        if status == "cancelled" and k % 2 == 0:
            paid = 0
        method = None
        if paid:
            method = "account" if s["account_type"] == "business" and r.random() < 0.8 else "card"
        promised = created + timedelta(days=1 + route["transit_days"])
        ship = {"shipment_id": sid, "quote_id": qid, "sender_id": s["customer_id"], "recipient_id": ra["customer_id"],
                "origin_address_id": oa["address_id"], "destination_address_id": ra["address_id"],
                "route_id": route["route_id"], "origin_depot_id": oa["depot_id"],
                "destination_depot_id": ra["depot_id"], "current_depot_id": None,
                "service_level": route["service_level"], "status": status, "customs_required": cust_req,
                "price_cents": price, "insured_value_cents": insured, "insurance_premium_cents": prem,
                "paid_cents": paid, "payment_method": method, "refunded_cents": 0, "delivery_attempts": 0,
                "delivery_courier_id": None, "created_on": iso(created), "promised_by": iso(promised),
                "delivered_on": None, "reference": None}
        if s["account_type"] == "business" and r.random() < 0.7:
            ship["reference"] = f"{r.choice(['PO', 'INV', 'ORD', 'RMA'])}-{created.strftime('%y%m')}-{r.randint(100, 999)}"
        elif r.random() < 0.25:
            ship["reference"] = r.choice(["Birthday present", "Moving boxes", "Return of borrowed items",
                                          "Gift for grandma", "Sold on marketplace"])
        shipments.append(ship)
        odep, ddep = oa["depot_id"], ra["depot_id"]
        t0 = ts(created, r.randint(8, 16), r.randint(0, 59))
        if created == TODAY:
            t0 = ts(created, 7, r.randint(0, 40))
        event(sid, "created", None, t0)
        if paid:
            event(sid, "booked", None, t0[:14] + f"{min(59, int(t0[14:16]) + r.randint(2, 20)):02d}:00")
        if method == "account" and created >= date(2026, 3, 16) and status != "cancelled":
            account_spend[s["customer_id"]] = account_spend.get(s["customer_id"], 0) + paid

        # customs declaration
        if cust_req and status != "awaiting_payment" or (cust_req and status == "awaiting_payment" and k % 2 == 0):
            dstatus = "draft" if status in ("awaiting_payment",) else "submitted"
            if status == "booked" and k % 3 == 0:
                dstatus = "draft"
            if status in ("out_for_delivery", "delivered", "return_to_sender") or (status == "in_transit" and k % 2 == 1):
                dstatus = "cleared"
            if status == "cancelled":
                dstatus = "draft"
            if status == "lost":
                dstatus = "submitted"
            declared = declared_total
            if k % 11 == 0 and status in ("delivered", "in_transit"):
                declarations.append({"declaration_id": nid("CDC"), "shipment_id": sid,
                                     "contents_description": item.lower(), "hs_code": "999999",
                                     "declared_value_cents": max(100, declared // 2), "incoterm": "DAP",
                                     "duty_cents": duty(max(100, declared // 2)), "status": "rejected",
                                     "created_on": iso(created), "submitted_on": iso(created), "cleared_on": None})
            declarations.append({"declaration_id": nid("CDC"), "shipment_id": sid, "contents_description": item,
                                 "hs_code": hs, "declared_value_cents": declared,
                                 "incoterm": "DDP" if s["account_type"] == "business" and k % 2 == 0 else "DAP",
                                 "duty_cents": duty(declared), "status": dstatus, "created_on": iso(created),
                                 "submitted_on": iso(created) if dstatus != "draft" else None, "cleared_on": None})
        decl_row = declarations[-1] if declarations and declarations[-1]["shipment_id"] == sid else None

        if status in ("awaiting_payment",):
            return
        if status == "cancelled":
            cancel_day = created + timedelta(days=r.choice([0, 1]))
            if paid:
                ship["refunded_cents"] = paid
                pk = {"pickup_id": nid("PCK"), "shipment_id": sid, "address_id": oa["address_id"],
                      "courier_id": None, "pickup_date": iso(not_sunday(cancel_day + timedelta(days=1))),
                      "time_window": r.choice(["morning", "afternoon"]), "status": "cancelled", "completed_at": None,
                      "note": "Cancelled together with the shipment"}
                pickups.append(pk)
            event(sid, "cancelled", None, ts(cancel_day, 17, r.randint(0, 59)),
                  r.choice(["Customer no longer needs the delivery", "Booked twice by mistake",
                            "Recipient collected in person"]))
            return
        # pickup
        if status == "booked":
            roll = k % 4
            if roll == 3:
                return  # booked, no pickup yet
            pdate = not_sunday(TODAY + timedelta(days=r.choice([0, 1, 2])))
            cr = None
            if roll in (0, 1):
                cands = depot_couriers(odep)
                cr = r.choice(cands)["courier_id"] if cands else None
            if cust_req and decl_row is not None and decl_row["status"] == "draft":
                return  # cannot schedule before the declaration is submitted
            pickups.append({"pickup_id": nid("PCK"), "shipment_id": sid, "address_id": oa["address_id"],
                            "courier_id": cr, "pickup_date": iso(pdate),
                            "time_window": r.choice(["morning", "afternoon", "evening"]), "status": "scheduled",
                            "completed_at": None, "note": None})
            return
        pdate = not_sunday(created + timedelta(days=1))
        if status == "picked_up":
            pdate = TODAY - timedelta(days=r.choice([0, 1])) if created < TODAY - timedelta(days=1) else TODAY
        cand = depot_couriers(odep, usable=False)
        pc = r.choice(cand)["courier_id"]
        if k % 6 == 0:  # an earlier pickup that was cancelled and rebooked
            pickups.append({"pickup_id": nid("PCK"), "shipment_id": sid, "address_id": oa["address_id"],
                            "courier_id": None, "pickup_date": iso(pdate), "time_window": "morning",
                            "status": "cancelled", "completed_at": None, "note": "Sender not available in the morning"})
        window = r.choice(["morning", "afternoon", "evening"])
        hour = {"morning": 10, "afternoon": 14, "evening": 17}[window]
        picked_at = ts(pdate, hour, r.randint(0, 59))
        if status == "picked_up" and pdate == TODAY:
            picked_at = ts(pdate, 8, r.randint(10, 59))
            window = "morning"
        pickups.append({"pickup_id": nid("PCK"), "shipment_id": sid, "address_id": oa["address_id"], "courier_id": pc,
                        "pickup_date": iso(pdate), "time_window": window, "status": "completed",
                        "completed_at": picked_at, "note": None})
        event(sid, "picked_up", None, picked_at, f"Collected by courier {pc}")
        if status == "picked_up":
            return
        event(sid, "arrived_depot", odep, ts(pdate, 19, r.randint(0, 59)))
        if status == "lost":
            event(sid, "departed_depot", odep, ts(pdate, 22, r.randint(0, 59)))
            lost_day = pdate + timedelta(days=12)
            event(sid, "lost", None, ts(lost_day, 11, r.randint(0, 59)), "No scan for 12 days; search unsuccessful")
            return
        if status == "in_transit" and created < TODAY - timedelta(days=12):
            if odep != ddep:
                event(sid, "departed_depot", odep, ts(pdate, 22, r.randint(0, 59)))
            else:
                ship["current_depot_id"] = odep
            return  # stale: nothing since
        arrive = pdate + timedelta(days=max(0, route["transit_days"] - 1))
        if status == "in_transit" and k % 2 == 0 and odep != ddep:
            ship["current_depot_id"] = None
            event(sid, "departed_depot", odep, ts(pdate, 22, r.randint(0, 59)))
            return  # on the line haul
        if odep != ddep:
            event(sid, "departed_depot", odep, ts(pdate, 22, r.randint(0, 59)))
            if arrive <= pdate:
                arrive = pdate + timedelta(days=1)
            event(sid, "arrived_depot", ddep, ts(arrive, 5, r.randint(0, 59)))
        ship["current_depot_id"] = ddep
        if status in ("in_transit", "held_customs") and arrive >= TODAY:
            arrive = TODAY - timedelta(days=1)
        if status == "held_customs":
            decl_row["status"] = "submitted"
            event(sid, "held_customs", ddep, ts(arrive, 6, r.randint(0, 59)), "Awaiting customs clearance")
            return
        day = arrive + timedelta(days=1)
        if cust_req:
            decl_row["cleared_on"] = iso(arrive)
            decl_row["status"] = "cleared"
            if status == "in_transit":
                pass
        if status == "in_transit":
            return
        drivers = depot_couriers(ddep, usable=False)
        late = status == "delivered" and r.random() < 0.3
        if late:
            day = day + timedelta(days=r.randint(1, 3))
        attempts = 0
        n_fail = 3 if status == "return_to_sender" else (1 if late and r.random() < 0.5 else 0)
        if status == "out_for_delivery":
            day = TODAY
        for _ in range(n_fail):
            day = not_sunday(day)
            drv = r.choice(drivers)["courier_id"]
            event(sid, "out_for_delivery", ddep, ts(day, 7, r.randint(0, 59)), f"Courier {drv}")
            attempts += 1
            event(sid, "delivery_failed", ddep, ts(day, r.randint(11, 17), r.randint(0, 59)), r.choice(FAILED_REASONS))
            day = day + timedelta(days=1)
        ship["delivery_attempts"] = attempts
        if status == "return_to_sender":
            event(sid, "returning_to_sender", ddep, events[-1]["occurred_at"][:11] + "18:00:00",
                  "Third delivery attempt failed")
            return
        day = not_sunday(day) if status != "out_for_delivery" else TODAY
        if day > TODAY:
            day = TODAY - timedelta(days=1)
        drv = r.choice([c for c in drivers if c["status"] != "off_duty"] or drivers)
        ship["delivery_courier_id"] = drv["courier_id"]
        event(sid, "out_for_delivery", ddep, ts(day, 7, r.randint(0, 59)), f"Courier {drv['courier_id']}")
        if status == "out_for_delivery":
            drv["status"] = "on_route"
            return
        event(sid, "delivered", ddep, ts(day, r.randint(10, 17), r.randint(0, 59)),
              f"Received by {r.choice(['recipient', 'neighbour', 'reception desk', 'building concierge'])}")
        ship["delivered_on"] = iso(day)
        ship["current_depot_id"] = None
        if day > promised:
            pass

    for k, status in enumerate(plan_status):
        build(k, status)

    # -- open / expired quotes that were never booked --------------------------------------------
    for k in range(32):
        while True:
            s = r.choice(customers)
            o = [a for a in active_addr if a["customer_id"] == s["customer_id"] and a["depot_id"] in network]
            if o:
                break
        oa = r.choice(o)
        ra = r.choice([a for a in active_addr if a["customer_id"] != s["customer_id"] and a["depot_id"] in network])
        levels = [lvl for lvl in ("standard", "express", "economy") if (oa["depot_id"], ra["depot_id"], lvl) in route_by_key]
        if not levels:
            continue
        route = route_by_key[(oa["depot_id"], ra["depot_id"], r.choice(levels))]
        dims = r.choice([(30, 20, 15), (40, 30, 20), (50, 40, 30), (60, 40, 40), (80, 60, 40)])
        w = round(r.uniform(0.5, 25.0), 1)
        ch = chargeable(w, *dims)
        created = TODAY - timedelta(days=r.choice([0, 0, 1, 2, 3, 5, 6, 9, 12, 20]))
        quotes.append({"quote_id": nid("QUO"), "customer_id": s["customer_id"], "origin_address_id": oa["address_id"],
                       "destination_address_id": ra["address_id"], "route_id": route["route_id"],
                       "service_level": route["service_level"], "weight_kg": w, "length_cm": dims[0],
                       "width_cm": dims[1], "height_cm": dims[2], "chargeable_weight_kg": ch,
                       "price_cents": route["base_cents"] + route["per_kg_cents"] * ch
                       + (RESIDENTIAL_SURCHARGE if ra["is_residential"] else 0),
                       "created_on": iso(created), "valid_until": iso(created + timedelta(days=7)), "status": "open"})

    # -- claims ---------------------------------------------------------------------------------
    pcl_by_ship: dict[str, list[dict]] = {}
    for p in parcels:
        pcl_by_ship.setdefault(p["shipment_id"], []).append(p)
    claim_notes = {
        "damage": ["Box arrived crushed on one corner, contents broken", "Water damage to the contents",
                   "Two items cracked in transit", "Outer carton torn open, one item scratched"],
        "delay": ["Delivered after the promised date; the event it was for had passed",
                  "Express delivery arrived days late", "Late delivery caused a missed customer deadline"],
        "loss": ["Parcel never arrived; tracking stopped after departure", "Shipment lost in the network"],
    }
    for ship in shipments:
        if len(claims) >= 36:
            break
        st = ship["status"]
        declared = sum(p["declared_value_cents"] for p in pcl_by_ship[ship["shipment_id"]])
        cover = max(LIABILITY_CENTS, ship["insured_value_cents"])
        if st == "lost":
            ctype, filed = "loss", date.fromisoformat(ship["created_on"]) + timedelta(days=16)
        elif st == "delivered" and ship["delivered_on"] > ship["promised_by"]:
            ctype, filed = "delay", date.fromisoformat(ship["delivered_on"]) + timedelta(days=r.randint(0, 5))
        elif st == "delivered" and r.random() < 0.75:
            ctype, filed = "damage", date.fromisoformat(ship["delivered_on"]) + timedelta(days=r.randint(0, 12))
        else:
            continue
        if filed > TODAY:
            filed = TODAY
        if ctype == "delay":
            amount = max(100, (ship["paid_cents"] - ship["refunded_cents"]) * r.choice([50, 100]) // 100)
        else:
            amount = max(1500, min(declared, declared * r.choice([40, 70, 100]) // 100)) // 100 * 100
        age = (TODAY - filed).days
        cstatus = "open" if age < 8 or r.random() < 0.2 else r.choice(["approved", "rejected", "paid", "paid"])
        if ctype != "damage" and cstatus == "rejected":
            cstatus = "paid"
        limit = ship["paid_cents"] - ship["refunded_cents"] if ctype == "delay" else cover
        approved = None
        resolved = None
        note = None
        if cstatus in ("approved", "paid"):
            approved = min(amount, limit)
            note = "Approved up to the standard liability cover" if approved < amount else "Approved in full"
            if cstatus == "paid":
                resolved = iso(filed + timedelta(days=r.randint(3, min(10, max(3, age)))))
                if resolved > iso(TODAY):
                    resolved = iso(TODAY)
        elif cstatus == "rejected":
            resolved = iso(filed + timedelta(days=r.randint(2, max(2, min(9, age)))))
            if resolved > iso(TODAY):
                resolved = iso(TODAY)
            note = r.choice(["Packaging was insufficient for fragile contents", "No photos of the damage supplied",
                             "Damage not reported at delivery"])
        claims.append({"claim_id": nid("CLM"), "shipment_id": ship["shipment_id"], "customer_id": ship["sender_id"],
                       "claim_type": ctype, "amount_claimed_cents": amount, "amount_approved_cents": approved,
                       "status": cstatus, "description": r.choice(claim_notes[ctype]), "filed_on": iso(filed),
                       "resolved_on": resolved, "resolution_note": note})
        if cstatus == "rejected" and ctype == "damage" and r.random() < 0.5:
            claims.append({"claim_id": nid("CLM"), "shipment_id": ship["shipment_id"],
                           "customer_id": ship["sender_id"], "claim_type": "damage",
                           "amount_claimed_cents": amount // 2 // 100 * 100 or 1000, "amount_approved_cents": None,
                           "status": "open", "description": "Resubmitted with photos of the damaged contents",
                           "filed_on": iso(TODAY - timedelta(days=r.randint(0, 3))), "resolved_on": None,
                           "resolution_note": None})

    # -- older deliveries: a live network's history is mostly delivered shipments -------------------
    # Built after the claims so that the current rows above keep their values; their quote, parcel,
    # pickup and declaration ids continue the sequences, and their events are numbered after the others.
    first_history_event = len(events)
    for k in range(len(plan_status), len(plan_status) + HISTORY_DELIVERIES):
        build(k, "delivered", history=True)
    history_events = events[first_history_event:]
    del events[first_history_event:]

    # -- texture: varied references, contents and notes; a claims history like a live desk's ----------
    texture = Random(2604)
    personal_refs = set(PERSONAL_REFERENCES[:5])
    refs = PERSONAL_REFERENCES[:]
    texture.shuffle(refs)
    k_ref = 0
    for ship in shipments:
        if ship["reference"] in personal_refs:
            ship["reference"] = refs[k_ref % len(refs)]
            k_ref += 1
    books = [BOOK_PARCELS[0]] + BOOK_PARCELS[1:]
    k_book = 0
    for ship in shipments:
        mine = [p for p in parcels if p["shipment_id"] == ship["shipment_id"] and p["contents"] == BOOK_PARCELS[0]]
        if not mine:
            continue
        text = books[k_book % len(books)]
        k_book += 1
        for pcl in mine:
            pcl["contents"] = text
        for decl in declarations:
            if decl["shipment_id"] == ship["shipment_id"]:
                if decl["contents_description"] == BOOK_PARCELS[0]:
                    decl["contents_description"] = text
                elif decl["contents_description"] == BOOK_PARCELS[0].lower():
                    decl["contents_description"] = text.lower()
    k_pick = 0
    for pk in pickups:
        if pk["note"] == "Sender not available in the morning":
            pk["note"] = PICKUP_RESCHEDULED[k_pick % len(PICKUP_RESCHEDULED)]
            k_pick += 1
    k_cap = 0
    for claim in claims:
        if claim["resolution_note"] == CAPPED_NOTES[0]:
            claim["resolution_note"] = CAPPED_NOTES[k_cap % len(CAPPED_NOTES)]
            k_cap += 1
    # couriers: at 09:30 on a Wednesday most are working; a few off duty
    for courier in couriers:
        if courier["courier_id"] in ("COU-00007", "COU-00035"):
            courier["status"] = "on_route"
        elif courier["courier_id"] in ("COU-00017", "COU-00034"):
            courier["status"] = "available"
    # the claims history: most claims are settled (paid or rejected) long before today
    history_ships = shipments[len(plan_status):]
    declared_of: dict[str, int] = {}
    for pcl in parcels:
        declared_of[pcl["shipment_id"]] = declared_of.get(pcl["shipment_id"], 0) + pcl["declared_value_cents"]
    claimed = {c["shipment_id"] for c in claims}
    k_paid = k_rej = 0
    for ship in history_ships:
        if k_paid + k_rej >= 14:
            break
        if ship["shipment_id"] in claimed:
            continue
        delivered = date.fromisoformat(ship["delivered_on"])
        if ship["delivered_on"] > ship["promised_by"]:
            ctype = "delay"
        elif texture.random() < 0.5:
            ctype = "damage"
        else:
            continue
        filed = delivered + timedelta(days=texture.randint(1, 9))
        resolved = filed + timedelta(days=texture.randint(3, 12))
        if resolved >= TODAY:
            continue
        cover = ship["paid_cents"] - ship["refunded_cents"] if ctype == "delay" else max(LIABILITY_CENTS,
                                                                                         ship["insured_value_cents"])
        if ctype == "delay":
            amount = max(100, (ship["paid_cents"] - ship["refunded_cents"]) * texture.choice([50, 100]) // 100)
        else:
            amount = max(1500, declared_of[ship["shipment_id"]] * texture.choice([40, 70, 100]) // 100) // 100 * 100
        rejected = ctype == "damage" and k_rej < 6 and texture.random() < 0.7
        if rejected:
            status, approved, note = "rejected", None, REJECTED_NOTES[k_rej % len(REJECTED_NOTES)]
            k_rej += 1
        else:
            status, approved = "paid", min(amount, cover)
            note = (PAID_NOTES[ctype][k_paid % len(PAID_NOTES[ctype])] if approved == amount
                    else CAPPED_NOTES[k_cap % len(CAPPED_NOTES)])
            k_cap += approved != amount
            k_paid += 1
        claims.append({"claim_id": nid("CLM"), "shipment_id": ship["shipment_id"], "customer_id": ship["sender_id"],
                       "claim_type": ctype, "amount_claimed_cents": amount, "amount_approved_cents": approved,
                       "status": status, "description": "", "filed_on": iso(filed), "resolved_on": iso(resolved),
                       "resolution_note": note})
        claimed.add(ship["shipment_id"])
    # large insured losses a claims supervisor approved: their payout is the supervisor's, not the desk's
    valuable = sorted((s for s in history_ships if s["shipment_id"] not in claimed
                       and declared_of[s["shipment_id"]] >= 70000 and s["delivered_on"] >= iso(TODAY - timedelta(days=140))),
                      key=lambda s: -declared_of[s["shipment_id"]])
    for ship in sorted(valuable[:3], key=lambda s: s["shipment_id"]):
        declared = declared_of[ship["shipment_id"]]
        insured = min(declared, 150000)
        ship["paid_cents"] += premium(insured) - ship["insurance_premium_cents"]
        ship["insured_value_cents"], ship["insurance_premium_cents"] = insured, premium(insured)
        delivered = date.fromisoformat(ship["delivered_on"])
        filed = delivered + timedelta(days=texture.randint(1, 6))
        amount = max(55000, declared * texture.choice([60, 80, 100]) // 100 // 100 * 100)
        amount = min(amount, insured)
        claims.append({"claim_id": nid("CLM"), "shipment_id": ship["shipment_id"], "customer_id": ship["sender_id"],
                       "claim_type": "damage", "amount_claimed_cents": amount, "amount_approved_cents": amount,
                       "status": "approved", "description": "", "filed_on": iso(filed), "resolved_on": None,
                       "resolution_note": texture.choice(["Approved by the claims supervisor; payout needs sign-off",
                                                          "Supervisor approved the insured value, payout pending",
                                                          "Escalated and approved at supervisor level"])})

    # -- claim texts: what each claimant wrote, in their own words --------------------------------
    texts = Random(4151)
    contents_of = {p["shipment_id"]: p["contents"] for p in parcels}
    for claim in claims:
        claim["description"] = claim_text(texts, claim["claim_type"], contents_of[claim["shipment_id"]].lower(),
                                          claim["description"].startswith("Resubmitted"))

    # -- staff ------------------------------------------------------------------------------------
    seed["staff"] = make_staff(Random(1504), seed["depots"], couriers)

    # -- balances ---------------------------------------------------------------------------------
    for c in customers:
        if c["account_type"] == "business":
            spend = account_spend.get(c["customer_id"], 0)
            while spend > c["credit_limit_cents"]:
                c["credit_limit_cents"] += 250000
            c["account_balance_cents"] = spend
    # one business account close to its limit, on purpose
    near = next(c for c in customers if c["company"] == "Greco Ceramiche S.r.l.")
    near["credit_limit_cents"] = max(near["account_balance_cents"], 0) + 150000
    near["account_balance_cents"] = near["credit_limit_cents"] - 2100

    late = [e for e in events if e["occurred_at"] > NOW.isoformat()]
    assert not late, late
    events.sort(key=lambda e: (e["occurred_at"], e["shipment_id"]))
    history_events.sort(key=lambda e: (e["occurred_at"], e["shipment_id"]))
    events.extend(history_events)
    # delivery notes: who took the parcel, written the many ways couriers write it
    notes = Random(1504 + 2604)
    recipient_of = {s["shipment_id"]: cust[s["recipient_id"]] for s in shipments}
    for e in events:
        if e["event_type"] != "delivered" or not (e["note"] or "").startswith("Received by "):
            continue
        kind = {"recipient": "recipient", "neighbour": "neighbour", "reception desk": "reception",
                "building concierge": "concierge"}[e["note"][len("Received by "):]]
        name = recipient_of[e["shipment_id"]]["name"]
        e["note"] = notes.choice(DELIVERY_NOTES[kind]).format(
            name=name, initial=name[0], surname=name.split()[-1], n=notes.randint(2, 60), f=notes.randint(1, 6))
    for i, e in enumerate(events, start=1):
        e["event_id"] = f"TRK-{i:05d}"

    seed.update({"rate_quotes": quotes, "shipments": shipments, "parcels": parcels, "tracking_events": events,
                 "pickups": pickups, "customs_declarations": declarations, "claims": claims})
    out = Path(__file__).with_name("seed.json")
    out.write_text(json.dumps(seed, ensure_ascii=False, indent=1) + "\n")
    print({k: len(v) for k, v in seed.items()}, sum(len(v) for v in seed.values()))


if __name__ == "__main__":
    main()
