"""Deterministic seed for the stock_trading domain: writes seed.json beside this file.

Run: python generate_seed.py. No wall clock, one fixed random.Random. The domain clock is
2026-04-15T14:30:00; history runs from January 2026 up to the day before.
Money is USD cents. Cash balances reconcile with the cash_movements ledger.
"""

import json
import random
from datetime import date, datetime, timedelta
from pathlib import Path

R = random.Random(41017)
# A second stream for what the acting contract added (birth dates, staff, varied notes), so that
# the rows drawn from R keep their ids and values.
P = random.Random(52031)
# A third stream for what the live-system shape added (older dividends, order history, bank names),
# so that the rows drawn from R and P keep their ids and values.
Q = random.Random(70423)
TODAY = date(2026, 4, 15)

FIRST = ["Margaret", "Daniel", "Priya", "Tomas", "Hannah", "Olivier", "Grace", "Rahul", "Sofia", "Marcus",
         "Elena", "Jonah", "Aisha", "Victor", "Chloe", "Kenji", "Ruth", "Samuel", "Leila", "Patrick",
         "Ingrid", "Desmond", "Naomi", "Felix", "Amara", "Gregory", "Yuki", "Theresa", "Omar", "Beatrice",
         "Lucas", "Miriam", "Anton", "Clara", "Dev"]
LAST = ["Whitfield", "Okafor", "Raman", "Lindqvist", "Brennan", "Castellano", "Moreau", "Abernathy", "Chen",
        "Delgado", "Fitzgerald", "Haddad", "Iwasaki", "Kowalski", "Mbeki", "Novak", "Pemberton", "Quintero",
        "Sorensen", "Thornbury", "Vasquez", "Weller", "Yamamoto", "Zielinski", "Ashworth", "Bianchi",
        "Carmody", "Dunleavy", "Eriksen", "Farrow", "Gallagher", "Holloway", "Ivanova", "Jaramillo", "Kerrigan"]
COUNTRIES = [("US", "+1"), ("US", "+1"), ("US", "+1"), ("US", "+1"), ("CA", "+1"), ("GB", "+44"), ("IE", "+353")]
DOMAINS = ["mailbox.org", "fastmail.com", "proton.me", "outlook.com", "gmail.com", "icloud.com"]

# symbol, name, type, exchange, sector, price in dollars
INSTRUMENTS = [
    ("NWEC", "Northwind Energy Corp", "stock", "NYSE", "Energy", 48.20),
    ("NWEI", "Northwind Energy Income ETF", "etf", "ARCA", "Energy", 27.65),
    ("HLXB", "Helix Biotherapeutics Inc", "stock", "NASDAQ", "Healthcare", 112.40),
    ("HLXD", "Helix Diagnostics Holdings", "stock", "NASDAQ", "Healthcare", 34.85),
    ("QNTM", "Quantum Ridge Semiconductor", "stock", "NASDAQ", "Technology", 287.10),
    ("CRLN", "Carillon Software Group", "stock", "NASDAQ", "Technology", 156.75),
    ("BRKW", "Brookwater Financial Corp", "stock", "NYSE", "Financials", 61.30),
    ("BRKB", "Brookwater Bancshares", "stock", "NYSE", "Financials", 22.15),
    ("SLTR", "Saltire Industrial Machines", "stock", "NYSE", "Industrials", 93.60),
    ("PNFD", "Pinefield Foods Co", "stock", "NYSE", "Consumer Staples", 58.90),
    ("MRDN", "Meridian Utilities Inc", "stock", "NYSE", "Utilities", 71.25),
    ("ORCM", "Orchard Materials Ltd", "stock", "NYSE", "Materials", 39.40),
    ("VSTA", "Vista Harbor REIT", "stock", "NYSE", "Real Estate", 18.75),
    ("LMNA", "Lumina Communications", "stock", "NASDAQ", "Communication Services", 44.10),
    ("ATLS", "Atlas Freight Systems", "stock", "NYSE", "Industrials", 128.55),
    ("CDRX", "Cedarline Pharmaceuticals", "stock", "NYSE", "Healthcare", 67.80),
    ("FNXA", "Fenix Aerospace Corp", "stock", "NYSE", "Industrials", 214.30),
    ("GLDV", "Goldvale Mining Co", "stock", "NYSE", "Materials", 12.45),
    ("KSTR", "Kestrel Cloud Networks", "stock", "NASDAQ", "Technology", 412.90),
    ("MPLE", "Maplecrest Retail Holdings", "stock", "NYSE", "Consumer Discretionary", 88.35),
    ("OSPR", "Osprey Renewable Power", "stock", "NASDAQ", "Utilities", 25.60),
    ("RDWD", "Redwood Insurance Group", "stock", "NYSE", "Financials", 103.15),
    ("SNTL", "Sentinel Cybersecurity", "stock", "NASDAQ", "Technology", 79.95),
    ("TDAL", "Tidal Shipping Lines", "stock", "NYSE", "Industrials", 16.20),
    ("WSTR", "Westerly Beverage Co", "stock", "NYSE", "Consumer Staples", 47.55),
    ("ZNTH", "Zenith Automotive", "stock", "NASDAQ", "Consumer Discretionary", 231.40),
    ("AURA", "Aurora Medical Devices", "stock", "NYSE", "Healthcare", 145.20),
    ("BCNL", "Beacon Lane Media", "stock", "NASDAQ", "Communication Services", 9.85),
    ("HRTG", "Heritage Total Market ETF", "etf", "ARCA", "Broad Market", 302.60),
    ("HRTB", "Heritage Aggregate Bond ETF", "etf", "ARCA", "Fixed Income", 96.10),
    ("HRTD", "Heritage Dividend Growth ETF", "etf", "ARCA", "Broad Market", 84.45),
    ("SUMT", "Summit Technology Select ETF", "etf", "ARCA", "Technology", 198.70),
    ("GLBX", "Globex Emerging Markets ETF", "etf", "ARCA", "International", 41.35),
    ("CPRK", "Copperpeak Resources", "stock", "NYSE", "Materials", 7.30),
    ("NOVL", "Novella Robotics Inc", "stock", "NASDAQ", "Technology", 63.25),
    ("NOVA", "Nova Ridge Apparel", "stock", "NYSE", "Consumer Discretionary", 29.90),
]
HALTED = {"NOVL", "CPRK"}
DELISTED = {"BCNL", "TDAL"}
# splits: symbol, from, to, ex_date, status
SPLITS = [
    ("KSTR", 1, 4, "2026-04-14", "announced"),   # processable: no open orders on KSTR
    ("ZNTH", 1, 2, "2026-04-13", "announced"),   # open orders exist: must be cancelled first
    ("QNTM", 1, 3, "2026-05-20", "announced"),   # future
    ("GLDV", 5, 1, "2026-04-10", "announced"),   # reverse split, processable, fractional cash in lieu
    ("FNXA", 1, 2, "2026-02-02", "processed"),
    ("SUMT", 1, 2, "2026-01-20", "processed"),
]


STAFF_FIRST = ["Rosa", "Ethan", "Meera", "Caleb", "Joanna", "Tobias", "Nadia", "Wesley", "Ifeoma", "Gavin",
               "Lucia", "Harold", "Serena", "Mateo", "Alison", "Bernard", "Keiko", "Dominic", "Fatima", "Colin",
               "Petra", "Reginald", "Shauna", "Arjun", "Vivian", "Owen", "Marisol", "Trevor", "Helena", "Kwame"]
STAFF_LAST = ["Albright", "Nakamura", "Osei", "Fairbanks", "Lindgren", "Patel", "Rourke", "Salazar", "Tennant",
              "Uribe", "Voss", "Whitaker", "Adeyemi", "Bergstrom", "Crowley", "Duarte", "Ellison", "Grady",
              "Hollis", "Jablonski", "Kimura", "Lacroix", "Mendez", "Nyberg", "O'Connell", "Pryce"]
OFFICES = ["Jersey City", "Jersey City", "Denver", "Denver", "Toronto", "London"]
# Notes investors typed on orders and memos on transfers: each written once or twice, as people do.
ORDER_NOTES = [
    "buy the dip", "protect gains", "scale in", "adding before earnings", "trim after the run-up",
    "stop under the 50-day average", "second tranche", "rebalance to 60/40", "reinvesting the March bonus",
    "tax-loss harvest candidate", "take half off the table", "averaging down slowly", "target from the analyst note",
    "limit just under support", "exit if the guidance is cut", "start a small position", "lock in the dividend yield",
    "cover the tuition payment", "Roth conversion money", "sell into strength", "partial exit, keep a core",
    "buy for the kids account", "wait for a pullback", "hedge the energy exposure", "after the split announcement",
    "rotate out of tech", "top up the ETF core", "stop-loss per my plan", "fill only at this price or better",
    "raise cash for the house deposit", "add on the earnings beat", "small starter, will build", "take profit",
    "trim position", "price moved away", "wrong quantity", "changed my mind", "rebalancing",
]
TRANSFER_MEMOS = [
    "monthly top-up", "fund margin trading", "rebalance cash", "consolidating holdings", "move to long-term account",
    "college fund contribution", "moving the dividend cash", "quarterly rebalance", "cash for the April orders",
    "sweep idle cash", "gift shares to the family account", "topping up before earnings", "pay down the margin loan",
    "split the bonus between accounts", "back to the core account",
]

# why people cancelled a resting order (notes kept on cancelled orders)
CANCEL_NOTES = [
    "changed my mind", "price moved away", "wrong quantity", "rebalancing", "entered the wrong limit",
    "going to average in instead", "earnings date moved", "need the cash for a transfer", "meant the other account",
    "too far from the market", "will re-enter after the dividend", "replacing with a stop order", "duplicate order",
    "news changed the picture", "switching to the ETF instead", "waiting for the Fed decision",
]
# banks linked to accounts, by the investor's country
BANKS = {
    "US": ["Chase", "Bank of America", "Wells Fargo", "Ally Bank", "Capital One", "Citibank", "US Bank", "PNC",
           "Schwab Bank", "Navy Federal", "Fifth Third", "Truist"],
    "CA": ["RBC Royal Bank", "TD Canada Trust", "Scotiabank", "BMO"],
    "GB": ["Barclays", "HSBC UK", "Monzo", "Nationwide"],
    "IE": ["AIB", "Bank of Ireland", "PTSB"],
}


def cents(dollars: float) -> int:
    return int(round(dollars * 100))


def day(d: date) -> str:
    return d.isoformat()


def ts(d: date, hour: int, minute: int, second: int = 0) -> str:
    return datetime(d.year, d.month, d.day, hour, minute, second).isoformat()


def trading_day(start: date, end: date) -> date:
    while True:
        d = start + timedelta(days=R.randint(0, (end - start).days))
        if d.weekday() < 5:
            return d


def commission(notional: int) -> int:
    return max(100, (notional * 5 + 9999) // 10000)


def main() -> None:
    seed: dict[str, list[dict]] = {}
    # -- instruments
    instruments = []
    for i, (sym, name, kind, exch, sector, price) in enumerate(INSTRUMENTS, 1):
        p = cents(price)
        prev = max(1, int(round(p * (1 + R.uniform(-0.035, 0.035)))))
        status = "halted" if sym in HALTED else "delisted" if sym in DELISTED else "active"
        instruments.append({"instrument_id": f"INS-{i:05d}", "symbol": sym, "name": name, "asset_type": kind,
                            "exchange": exch, "sector": sector, "price_cents": p, "prev_close_cents": prev,
                            "status": status})
    by_sym = {x["symbol"]: x for x in instruments}
    tradable = [x for x in instruments if x["status"] == "active"]

    # -- investors (three namesake pairs on purpose)
    investors = []
    names = []
    used = set()
    while len(names) < 38:
        n = (R.choice(FIRST), R.choice(LAST))
        if n not in used:
            used.add(n)
            names.append(n)
    names.insert(7, names[2])
    names.insert(19, names[11])
    names.insert(30, names[25])
    for i, (first, last) in enumerate(names, 1):
        country, prefix = R.choice(COUNTRIES)
        kyc = "verified"
        if i in (6, 17, 29, 36):
            kyc = "pending"
        if i in (23, 40):
            kyc = "rejected"
        risk = R.choice(["conservative", "balanced", "balanced", "aggressive", "aggressive"])
        if i in (1, 2, 3, 8):
            risk = ["aggressive", "balanced", "aggressive", "conservative"][[1, 2, 3, 8].index(i)]
        email = f"{first.lower()}.{last.lower()}{'' if i < 20 else i}@{R.choice(DOMAINS)}"
        if email in {x["email"] for x in investors}:
            email = f"{first[0].lower()}{last.lower()}{i}@{R.choice(DOMAINS)}"
        investors.append({"investor_id": f"INV-{i:05d}", "full_name": f"{first} {last}", "email": email,
                          "phone": f"{prefix} {R.randint(200, 989)} {R.randint(200, 999)} {R.randint(1000, 9999)}",
                          "country": country, "risk_profile": risk, "kyc_status": kyc,
                          "joined_on": day(date(2019, 1, 1) + timedelta(days=R.randint(0, 2500)))})

    # -- accounts
    accounts = []
    nick_cash = ["Individual brokerage", "Long-term core", "Everyday investing", "Dividend income", "Kids college fund"]
    nick_margin = ["Active trading", "Margin trading", "Swing trades", "Options prep"]
    for inv in investors:
        n = 1 if inv["kyc_status"] != "verified" else R.choice([1, 2, 2, 3])
        idx = int(inv["investor_id"][-5:])
        if idx in (1, 2, 3):
            n = 3
        for k in range(n):
            margin = k == 1 and inv["risk_profile"] != "conservative"
            kind = "margin" if margin else "cash"
            nick = R.choice(nick_margin) if margin else nick_cash[k if k < len(nick_cash) else 0]
            if k == 0:
                nick = "Individual brokerage"
            opened = max(date.fromisoformat(inv["joined_on"]), date(2020, 1, 1)) + timedelta(days=R.randint(0, 400))
            accounts.append({"account_id": "", "investor_id": inv["investor_id"], "account_type": kind,
                             "nickname": nick, "status": "active", "cash_cents": 0, "reserved_cents": 0,
                             "margin_limit_cents": cents(R.choice([10000, 25000, 50000, 75000])) if margin else 0,
                             "opened_on": day(min(opened, date(2025, 12, 1))), "closed_on": None})
    for i, acc in enumerate(accounts, 1):
        acc["account_id"] = f"ACC-{i:05d}"
    frozen = [accounts[9], accounts[27], accounts[44]]
    for a in frozen:
        a["status"] = "frozen"
    closed = [a for a in accounts if a["nickname"] == "Everyday investing" and a["status"] == "active"][:3]
    for a in closed:
        a["status"] = "closed"
        a["closed_on"] = day(trading_day(date(2026, 1, 10), date(2026, 3, 20)))
    acc_by_id = {a["account_id"]: a for a in accounts}
    live = [a for a in accounts if a["status"] != "closed"]
    verified_ids = {x["investor_id"] for x in investors if x["kyc_status"] == "verified"}

    # -- positions, with the filled buy orders that opened them
    positions, orders, executions, moves = [], [], [], []

    def add_move(acc_id, kind, amount, ref, when, text):
        moves.append({"movement_id": "", "account_id": acc_id, "movement_type": kind, "amount_cents": amount,
                      "reference_id": ref, "occurred_at": when, "description": text})

    def add_order(acc, ins, side, otype, qty, limit, stop, tif, status, placed, closed_at, note, reserved=0):
        oid = f"ORD-{len(orders) + 1:05d}"
        orders.append({"order_id": oid, "account_id": acc["account_id"], "instrument_id": ins["instrument_id"],
                       "side": side, "order_type": otype, "quantity": qty, "limit_price_cents": limit,
                       "stop_price_cents": stop, "time_in_force": tif, "status": status, "reserved_cents": reserved,
                       "placed_at": placed, "closed_at": closed_at, "note": note})
        return oid

    def add_exec(oid, acc, ins, side, qty, price, when):
        eid = f"EXE-{len(executions) + 1:05d}"
        fee = commission(qty * price)
        executions.append({"execution_id": eid, "order_id": oid, "account_id": acc["account_id"],
                           "instrument_id": ins["instrument_id"], "side": side, "quantity": qty, "price_cents": price,
                           "commission_cents": fee, "executed_at": when})
        notional = qty * price
        if side == "buy":
            add_move(acc["account_id"], "buy", -(notional + fee), oid, when, f"Bought {qty} {ins['symbol']}")
        else:
            add_move(acc["account_id"], "sell", notional - fee, oid, when, f"Sold {qty} {ins['symbol']}")
        return fee

    holders = [a for a in live if a["investor_id"] in verified_ids] + [a for a in live if a["investor_id"] not in verified_ids][:2]
    holders.sort(key=lambda a: a["account_id"])
    pos_pairs = set()
    for acc in holders:
        k = R.choice([1, 1, 2, 2, 3])
        if acc["account_id"] in ("ACC-00001", "ACC-00002"):
            k = 5
        for ins in R.sample(instruments, k):
            if (acc["account_id"], ins["instrument_id"]) in pos_pairs:
                continue
            pos_pairs.add((acc["account_id"], ins["instrument_id"]))
            base = ins["price_cents"]
            qty = R.choice([5, 10, 12, 15, 20, 25, 30, 40, 50, 75, 100, 150, 200])
            if base > 20000:
                qty = R.choice([2, 3, 5, 8, 10, 12])
            buy_price = max(1, int(round(base * R.uniform(0.78, 1.12))))
            d = trading_day(date(2026, 1, 5), date(2026, 4, 10))
            when = ts(d, R.randint(9, 15), R.choice([31, 35, 40, 45, 50, 5, 12, 20]), R.randint(0, 59))
            if when[11:13] == "09" and int(when[14:16]) < 30:
                when = when[:14] + "45" + when[16:]
            otype = R.choice(["market", "market", "limit"])
            limit = buy_price + R.choice([0, 5, 10, 25]) if otype == "limit" else None
            oid = add_order(acc, ins, "buy", otype, qty, limit, None, R.choice(["day", "gtc"]), "filled", when, when, None)
            fee = add_exec(oid, acc, ins, "buy", qty, buy_price, when)
            positions.append({"position_id": f"POS-{len(positions) + 1:05d}", "account_id": acc["account_id"],
                              "instrument_id": ins["instrument_id"], "quantity": qty, "reserved_quantity": 0,
                              "cost_basis_cents": qty * buy_price + fee, "opened_on": day(d)})
    # make sure the processable splits have holders with fractional cases
    # -- closed round trips: filled sells of positions no longer held
    for acc in R.sample(holders, 14):
        ins = R.choice(tradable)
        if (acc["account_id"], ins["instrument_id"]) in pos_pairs:
            continue
        qty = R.choice([10, 20, 25, 50])
        p1 = int(round(ins["price_cents"] * R.uniform(0.8, 1.0)))
        p2 = int(round(p1 * R.uniform(0.92, 1.15)))
        d1 = trading_day(date(2026, 1, 5), date(2026, 2, 20))
        d2 = trading_day(d1 + timedelta(days=3), date(2026, 4, 10))
        w1, w2 = ts(d1, 10, R.randint(0, 59)), ts(d2, 14, R.randint(0, 59))
        oid = add_order(acc, ins, "buy", "market", qty, None, None, "day", "filled", w1, w1, None)
        add_exec(oid, acc, ins, "buy", qty, p1, w1)
        otype = R.choice(["limit", "market", "stop"])
        oid = add_order(acc, ins, "sell", otype, qty, p2 if otype == "limit" else None,
                        p2 if otype == "stop" else None, "gtc", "filled", w2, w2,
                        R.choice([None, "take profit", "trim position", None]))
        add_exec(oid, acc, ins, "sell", qty, p2, w2)

    # -- cancelled and expired orders (history)
    notes = [None, None, "changed my mind", "price moved away", "rebalancing", None, "wrong quantity"]
    for _ in range(16):
        acc = R.choice(holders)
        ins = R.choice(tradable)
        d = trading_day(date(2026, 1, 5), date(2026, 4, 14))
        placed = ts(d, R.randint(9, 15), R.randint(31, 59))
        status = R.choice(["cancelled", "cancelled", "expired"])
        tif = "day" if status == "expired" else R.choice(["day", "gtc"])
        closed_at = ts(d, 16, 0) if status == "expired" else ts(d, 15, 59) if tif == "day" else ts(d + timedelta(days=R.randint(1, 2)), 11, 5)
        if closed_at[:10] >= day(TODAY):
            closed_at = ts(d, 15, 59)
        limit = int(round(ins["price_cents"] * R.uniform(0.85, 0.97)))
        add_order(acc, ins, "buy", "limit", R.choice([5, 10, 20, 50]), limit, None, tif, status, placed, closed_at,
                  R.choice(notes) if status == "cancelled" else None)

    # -- open orders: reserve cash / shares
    pos_by_pair = {(p["account_id"], p["instrument_id"]): p for p in positions}
    open_specs = []
    ins_by_id = {x["instrument_id"]: x for x in instruments}
    active_holders = [a for a in holders if a["status"] == "active" and a["investor_id"] in verified_ids]
    # buy limits below market (resting), a few now marketable (price fell to the limit), stops above
    for n in range(26):
        acc = active_holders[(n * 7) % len(active_holders)]
        ins = tradable[(n * 5 + 3) % len(tradable)]
        if ins["symbol"] in ("KSTR", "GLDV"):
            ins = by_sym["CRLN"]
        kind = ["limit", "limit", "limit", "stop", "limit"][n % 5]
        price = ins["price_cents"]
        marketable = n % 6 == 1
        qty = R.choice([5, 10, 15, 20, 25, 40]) if price < 20000 else R.choice([1, 2, 3, 5])
        if kind == "limit":
            lim = int(round(price * (R.uniform(1.0, 1.03) if marketable else R.uniform(0.85, 0.98))))
            st = None
            ref = lim
        else:
            lim = None
            st = int(round(price * (R.uniform(0.96, 0.995) if marketable else R.uniform(1.03, 1.12))))
            ref = st
        stale = n % 8 == 3
        d = TODAY - timedelta(days=R.randint(1, 6)) if (stale or n % 3 == 0) else TODAY
        while d.weekday() >= 5:
            d -= timedelta(days=1)
        tif = "day" if (stale or d == TODAY and n % 2 == 0) else "gtc"
        placed = ts(d, R.randint(9, 13) if d == TODAY else R.randint(10, 15), R.randint(31, 59))
        if d == TODAY and placed > "2026-04-15T14:30:00":
            placed = ts(d, 11, 15)
        reserve = qty * ref + commission(qty * ref)
        open_specs.append((acc, ins, "buy", kind, qty, lim, st, tif, placed, reserve))
    # sells against held positions
    sellable = [p for p in positions if acc_by_id[p["account_id"]]["status"] == "active"
                and acc_by_id[p["account_id"]]["investor_id"] in verified_ids
                and ins_by_id[p["instrument_id"]]["status"] == "active"
                and ins_by_id[p["instrument_id"]]["symbol"] not in ("KSTR", "GLDV")]
    for n, pos in enumerate(R.sample(sellable, 20)):
        ins = ins_by_id[pos["instrument_id"]]
        acc = acc_by_id[pos["account_id"]]
        price = ins["price_cents"]
        kind = ["limit", "stop", "limit", "limit"][n % 4]
        marketable = n % 5 == 2
        qty = max(1, pos["quantity"] // R.choice([1, 2, 2, 3, 4]))
        if kind == "limit":
            lim = int(round(price * (R.uniform(0.97, 1.0) if marketable else R.uniform(1.03, 1.2))))
            st = None
        else:
            lim = None
            st = int(round(price * (R.uniform(1.005, 1.03) if marketable else R.uniform(0.85, 0.96))))
        stale = n % 7 == 4
        d = TODAY - timedelta(days=R.randint(1, 5)) if (stale or n % 3 == 1) else TODAY
        while d.weekday() >= 5:
            d -= timedelta(days=1)
        tif = "day" if (stale or (d == TODAY and n % 2 == 1)) else "gtc"
        placed = ts(d, R.randint(9, 13) if d == TODAY else R.randint(10, 15), R.randint(31, 59))
        if d == TODAY and placed > "2026-04-15T14:30:00":
            placed = ts(d, 10, 5)
        open_specs.append((acc, ins, "sell", kind, qty, lim, st, tif, placed, 0))
        pos["reserved_quantity"] += qty
    open_specs.sort(key=lambda s: s[8])
    for acc, ins, side, kind, qty, lim, st, tif, placed, reserve in open_specs:
        add_order(acc, ins, side, kind, qty, lim, st, tif, "open", placed, None,
                  R.choice([None, None, None, "buy the dip", "protect gains", "scale in"]), reserve)
        acc["reserved_cents"] += reserve

    # -- corporate actions
    actions = []
    div_syms = ["NWEC", "NWEI", "BRKW", "BRKB", "PNFD", "MRDN", "VSTA", "RDWD", "WSTR", "HRTD", "HRTB", "ORCM",
                "ATLS", "CDRX", "HRTG", "OSPR", "LMNA", "AURA", "SLTR", "GLBX"]
    for k, sym in enumerate(div_syms):
        ins = by_sym[sym]
        amount = max(3, int(round(ins["price_cents"] * R.uniform(0.004, 0.012))))
        # one past processed quarter for most, and the current quarter
        if k % 3 != 2:
            ex = trading_day(date(2026, 1, 8), date(2026, 2, 27))
            pay = ex + timedelta(days=R.choice([10, 14, 21]))
            actions.append(("dividend", ins, ex, pay, amount, None, None, "processed", ts(pay, 7, 0)))
        ex = trading_day(date(2026, 3, 25), date(2026, 5, 8))
        pay = ex + timedelta(days=R.choice([7, 10, 14, 21]))
        if k in (0, 3, 6):
            pay = min(pay, TODAY) if ex <= TODAY else pay
            ex, pay = (date(2026, 4, 1), date(2026, 4, 14)) if pay > TODAY else (ex, pay)
        status = "processed" if pay < TODAY - timedelta(days=2) and k % 4 != 0 else "announced"
        actions.append(("dividend", ins, ex, pay, amount, None, None, status,
                        ts(pay, 7, 0) if status == "processed" else None))
    for sym, f, t, ex, status in SPLITS:
        exd = date.fromisoformat(ex)
        actions.append(("split", by_sym[sym], exd, exd, None, f, t, status, ts(exd, 6, 0) if status == "processed" else None))
    # the two quarters before: paid and processed in 2025, before any current holder bought in
    for sym in div_syms:
        ins = by_sym[sym]
        first = min((a for a in actions if a[1] is ins and a[0] == "dividend"), key=lambda a: a[2])
        amount = first[4]
        for back in (1, 2):
            ex = first[2] - timedelta(days=91 * back + Q.randint(-4, 4))
            if ex >= date(2025, 12, 20):
                ex = date(2025, 12, 12) - timedelta(days=91 * (back - 1))
            while ex.weekday() >= 5:
                ex -= timedelta(days=1)
            pay = ex + timedelta(days=Q.choice([10, 14, 21]))
            paid = max(1, amount - Q.choice([0, 0, 1, 2]) * back)
            actions.append(("dividend", ins, ex, pay, paid, None, None, "processed", ts(pay, 7, 0)))
    actions.sort(key=lambda a: (a[2], a[1]["symbol"]))
    corporate = []
    for i, (kind, ins, ex, pay, amount, f, t, status, processed) in enumerate(actions, 1):
        aid = f"CA-{i:05d}"
        corporate.append({"action_id": aid, "instrument_id": ins["instrument_id"], "action_type": kind,
                          "ex_date": day(ex), "pay_date": day(pay), "amount_per_share_cents": amount,
                          "split_from": f, "split_to": t, "status": status, "processed_at": processed})
        if kind == "dividend" and status == "processed":
            for pos in positions:
                if pos["instrument_id"] == ins["instrument_id"] and pos["opened_on"] < day(ex):
                    add_move(pos["account_id"], "dividend", pos["quantity"] * amount, aid, processed,
                             f"Dividend {ins['symbol']} {amount} cents x {pos['quantity']} shares")

    # -- transfers between one investor's accounts
    transfers = []
    by_investor: dict[str, list[dict]] = {}
    for a in live:
        by_investor.setdefault(a["investor_id"], []).append(a)
    pairs = [v for v in by_investor.values() if len(v) >= 2]
    for n in range(30):
        group = pairs[n % len(pairs)]
        src, dst = R.sample(group, 2)
        d = trading_day(date(2026, 1, 6), date(2026, 4, 14))
        when = ts(d, R.randint(8, 17), R.randint(0, 59))
        tid = f"TRF-{n + 1:05d}"
        if n % 5 == 4:
            cands = [p for p in positions if p["account_id"] == src["account_id"] and p["opened_on"] < day(d)]
            if cands:
                pos = cands[0]
                qty = R.choice([2, 5, 10])
                transfers.append({"transfer_id": tid, "from_account_id": src["account_id"],
                                  "to_account_id": dst["account_id"], "transfer_type": "shares", "amount_cents": None,
                                  "instrument_id": pos["instrument_id"], "quantity": qty, "requested_at": when,
                                  "memo": R.choice([None, "consolidating holdings", "move to long-term account"])})
                continue
        amount = cents(R.choice([250, 500, 1000, 1500, 2000, 2500, 5000, 7500, 10000]))
        transfers.append({"transfer_id": tid, "from_account_id": src["account_id"], "to_account_id": dst["account_id"],
                          "transfer_type": "cash", "amount_cents": amount, "instrument_id": None, "quantity": None,
                          "requested_at": when, "memo": R.choice([None, "monthly top-up", "fund margin trading",
                                                                   "rebalance cash", None])})
        add_move(src["account_id"], "transfer_out", -amount, tid, when, f"Transfer to {dst['account_id']}")
        add_move(dst["account_id"], "transfer_in", amount, tid, when, f"Transfer from {src['account_id']}")

    # -- cash: deposits so every balance reconciles with the ledger
    def held_value(acc):
        return sum(p["quantity"] * ins_by_id[p["instrument_id"]]["price_cents"] for p in positions
                   if p["account_id"] == acc["account_id"])

    for acc in accounts:
        flow = sum(m["amount_cents"] for m in moves if m["account_id"] == acc["account_id"])
        if acc["status"] == "closed":
            target = 0
        elif acc["account_type"] == "margin" and R.random() < 0.4:
            target = -min(int(acc["margin_limit_cents"] * R.uniform(0.1, 0.5)), held_value(acc) * 30 // 100)
        else:
            target = cents(R.choice([850, 2400, 4100, 6300, 9800, 12500, 18250, 26400, 41000, 73500])) + R.randint(0, 9999)
        target = max(target, acc["reserved_cents"] - acc["margin_limit_cents"] + cents(R.choice([300, 1200, 5000])))
        if acc["status"] == "closed":
            target = 0
        need = target - flow
        opened = date.fromisoformat(acc["opened_on"])
        first_day = max(opened, date(2025, 12, 1))
        if acc["status"] == "closed":
            dep = cents(R.choice([1500, 3000, 5000]))
            when = ts(first_day + timedelta(days=2), 9, 0)
            add_move(acc["account_id"], "deposit", dep - flow, None, when, "ACH deposit")
            add_move(acc["account_id"], "withdrawal", -dep, None, ts(date.fromisoformat(acc["closed_on"]), 9, 0),
                     "Withdrawal before closing")
            continue
        extra = 0
        if need <= 0:
            extra = -need + cents(R.choice([500, 1000]))
            add_move(acc["account_id"], "withdrawal", -extra, None,
                     ts(trading_day(date(2026, 3, 1), date(2026, 4, 14)), 12, 0), "Withdrawal to bank")
            need += extra
        parts = 2 if need > 1500000 else 1
        first = need // parts
        add_move(acc["account_id"], "deposit", first, None, ts(first_day + timedelta(days=1), 9, 15),
                 R.choice(["ACH deposit", "Wire transfer in", "Initial funding"]))
        if parts == 2:
            add_move(acc["account_id"], "deposit", need - first, None, ts(date(2026, 1, 2), 9, 15), "ACH deposit")
        acc["cash_cents"] = target
        if acc["account_type"] == "margin":
            # the margin limit stays within half of the equity, and covers borrowing and reservations
            ceiling = (target + held_value(acc)) // 2 // 1000 * 1000
            acc["margin_limit_cents"] = max(min(acc["margin_limit_cents"], ceiling), acc["reserved_cents"] - target, -target)

    moves.sort(key=lambda m: (m["occurred_at"], m["account_id"]))
    for i, m in enumerate(moves, 1):
        m["movement_id"] = f"CM-{i:05d}"

    # -- watchlists and items
    watchlists, items = [], []
    wl_names = ["Tech ideas", "Dividend payers", "Energy transition", "Healthcare", "Watch for dips", "ETF core",
                "Tech", "Income", "Earnings season"]
    for inv in investors:
        idx = int(inv["investor_id"][-5:])
        n = 2 if idx % 5 == 0 else 1
        if idx in (1, 2):
            n = 3
        for k in range(n):
            name = wl_names[(idx + k * 4) % len(wl_names)]
            if idx == 1:
                name = ["Tech ideas", "Tech", "Dividend payers"][k]
            wid = f"WL-{len(watchlists) + 1:05d}"
            created = trading_day(date(2025, 10, 1), date(2026, 3, 31))
            watchlists.append({"watchlist_id": wid, "investor_id": inv["investor_id"], "name": name,
                               "created_on": day(created)})
            for ins in R.sample(instruments, R.randint(1, 3)):
                items.append({"item_id": "", "watchlist_id": wid, "instrument_id": ins["instrument_id"],
                              "added_on": day(created + timedelta(days=R.randint(0, 12)))})
    for i, it in enumerate(items, 1):
        it["item_id"] = f"WLI-{i:05d}"

    # -- alerts
    alerts = []
    for n in range(44):
        inv = investors[(n * 3) % len(investors)] if n % 4 else investors[n % 3]
        ins = tradable[(n * 7 + 1) % len(tradable)]
        price = ins["price_cents"]
        status = ["active", "active", "active", "triggered", "cancelled"][n % 5]
        direction = "above" if n % 2 == 0 else "below"
        crossed = status == "triggered" or (status == "active" and n % 7 == 0)
        if direction == "above":
            thr = int(round(price * (R.uniform(0.9, 0.99) if crossed else R.uniform(1.04, 1.25))))
        else:
            thr = int(round(price * (R.uniform(1.01, 1.08) if crossed else R.uniform(0.75, 0.96))))
        thr = max(100, (thr // 25) * 25)
        created = trading_day(date(2026, 2, 1), date(2026, 4, 10))
        trig = ts(trading_day(created + timedelta(days=1), date(2026, 4, 14)), 15, R.randint(0, 59)) if status == "triggered" else None
        if trig and trig[:10] <= day(created):
            trig = ts(date(2026, 4, 14), 15, 10)
        alerts.append({"alert_id": f"ALR-{n + 1:05d}", "investor_id": inv["investor_id"],
                       "instrument_id": ins["instrument_id"], "direction": direction, "threshold_cents": thr,
                       "status": status, "created_on": day(created), "triggered_at": trig})

    # -- what the acting contract added, from the second stream P
    # birth dates: namesakes are different people, born years apart
    for inv in investors:
        born = date(1951, 1, 1) + timedelta(days=P.randint(0, 52 * 365))
        joined = date.fromisoformat(inv["joined_on"])
        if joined.year - born.year < 19:
            born = date(joined.year - 19 - P.randint(0, 30), born.month, min(born.day, 28))
        inv_items = list(inv.items())
        inv.clear()
        for key, value in inv_items:
            inv[key] = value
            if key == "full_name":
                inv["date_of_birth"] = day(born)
    # varied free text: the notes and memos people typed
    noted = [o for o in orders if o["note"] is not None]
    for o in noted:
        o["note"] = P.choice(ORDER_NOTES)
    for o in [o for o in orders if o["note"] is None and o["status"] == "open"][::5]:
        o["note"] = P.choice(ORDER_NOTES)
    for t in transfers:
        if t["memo"] is not None:
            t["memo"] = P.choice(TRANSFER_MEMOS)
    # brokerage staff: the operations desk runs fills, expiries and corporate actions; client support
    # and compliance staff are real colleagues who may not
    staff = []
    staff_names = []
    seen = set()
    while len(staff_names) < 31:
        n = (P.choice(STAFF_FIRST), P.choice(STAFF_LAST))
        if n not in seen:
            seen.add(n)
            staff_names.append(n)
    staff_names.insert(12, staff_names[3])   # two colleagues of one name, on different desks
    desks = ["operations"] * 14 + ["client_support"] * 12 + ["compliance"] * 6
    for i, (first, last) in enumerate(staff_names, 1):
        desk = desks[(i * 7) % len(desks)]
        if i in (1, 2):
            desk = "operations"
        if i in (4, 9):
            desk = "operations"
        if i == 13:
            desk = "client_support"
        handle = f"{first[0].lower()}{last.lower().replace(chr(39), '')}"
        email = f"{handle}@harborline-brokerage.com"
        if email in {x["email"] for x in staff}:
            email = f"{first.lower()}.{last.lower().replace(chr(39), '')}@harborline-brokerage.com"
        status = "on_leave" if i in (9, 22) else "active"
        staff.append({"staff_id": f"STF-{i:05d}", "full_name": f"{first} {last}", "email": email, "desk": desk,
                      "office": P.choice(OFFICES), "status": status,
                      "hired_on": day(date(2012, 1, 1) + timedelta(days=P.randint(0, 5000)))})

    # -- the shape of a live system, from the third stream Q: order history in which many resting
    # orders were cancelled or expired unfilled, and ledger lines that name the linked bank
    def q_day(start: date, end: date) -> date:
        while True:
            d = start + timedelta(days=Q.randint(0, (end - start).days))
            if d.weekday() < 5:
                return d

    inv_by_id = {x["investor_id"]: x for x in investors}
    history_accounts = [a for a in holders if a["status"] != "closed"]
    for n in range(54):
        status = "cancelled" if n % 9 not in (1, 4, 7, 8) else "expired"
        acc = Q.choice(history_accounts)
        d = q_day(date(2026, 1, 5), date(2026, 4, 14))
        held = [p for p in positions if p["account_id"] == acc["account_id"] and p["opened_on"] < day(d)
                and ins_by_id[p["instrument_id"]]["status"] == "active"]
        if held and Q.random() < 0.4:
            pos = Q.choice(held)
            ins = ins_by_id[pos["instrument_id"]]
            side, qty = "sell", max(1, pos["quantity"] // Q.choice([1, 2, 4]))
            price = int(round(ins["price_cents"] * Q.uniform(1.03, 1.15)))
        else:
            ins = Q.choice(tradable)
            side = "buy"
            qty = Q.choice([5, 10, 15, 20, 25, 50]) if ins["price_cents"] < 20000 else Q.choice([1, 2, 3, 5])
            price = int(round(ins["price_cents"] * Q.uniform(0.85, 0.97)))
        kind = "stop" if n % 6 == 5 else "limit"
        limit, stop = (price, None) if kind == "limit" else (None, int(round(ins["price_cents"] * (0.9 if side == "sell" else 1.08))))
        placed = ts(d, Q.randint(9, 15), Q.randint(31, 59) if d.weekday() == 0 else Q.randint(0, 59))
        if placed[11:13] == "09" and int(placed[14:16]) < 30:
            placed = placed[:14] + "3" + placed[15:]
        if status == "expired":
            tif, closed_at = "day", ts(d, 16, 0)
            note = Q.choice(ORDER_NOTES) if Q.random() < 0.25 else None
        else:
            tif = Q.choice(["day", "gtc", "gtc"])
            later = d if tif == "day" else min(d + timedelta(days=Q.randint(0, 6)), TODAY - timedelta(days=1))
            while later.weekday() >= 5:
                later -= timedelta(days=1)
            closed_at = ts(later, Q.randint(10, 15), Q.randint(0, 59))
            if closed_at <= placed:
                closed_at = ts(d, 15, 58)
            note = Q.choice(CANCEL_NOTES) if Q.random() < 0.55 else None
        add_order(acc, ins, side, kind, qty, limit, stop, tif, status, placed, closed_at, note)

    bank = {}
    for acc in accounts:
        country = inv_by_id[acc["investor_id"]]["country"]
        bank[acc["account_id"]] = (Q.choice(BANKS[country]), f"{Q.randint(0, 9999):04d}")
    for m in moves:
        name, last4 = bank[m["account_id"]]
        text = m["description"]
        if text == "ACH deposit":
            m["description"] = Q.choice(["ACH deposit from {b} checking ending {l}", "ACH pull from {b} account ending {l}",
                                         "Recurring deposit from {b} ending {l}", "Bank transfer in from {b} ending {l}",
                                         "Deposit from linked {b} account ending {l}"]).format(b=name, l=last4)
        elif text == "Wire transfer in":
            m["description"] = Q.choice(["Incoming wire from {b}, ref W{r}", "Wire received from {b} ending {l}",
                                         "Domestic wire in, {b} ref W{r}"]).format(b=name, l=last4, r=Q.randint(100000, 999999))
        elif text == "Initial funding":
            m["description"] = Q.choice(["Initial funding by ACH from {b} ending {l}", "Account opening deposit from {b}",
                                         "First deposit, linked {b} account ending {l}"]).format(b=name, l=last4)
        elif text == "Withdrawal to bank":
            m["description"] = Q.choice(["ACH withdrawal to {b} ending {l}", "Withdrawal to linked {b} account ending {l}",
                                         "Cash out to {b} checking ending {l}"]).format(b=name, l=last4)
        elif text == "Withdrawal before closing":
            m["description"] = f"Closing balance sent to {name} ending {last4}"

    seed["investors"] = investors
    seed["staff"] = staff
    seed["accounts"] = accounts
    seed["instruments"] = instruments
    seed["positions"] = positions
    seed["orders"] = orders
    seed["executions"] = executions
    seed["watchlists"] = watchlists
    seed["watchlist_items"] = items
    seed["alerts"] = alerts
    seed["corporate_actions"] = corporate
    seed["transfers"] = transfers
    seed["cash_movements"] = moves
    out = Path(__file__).with_name("seed.json")
    out.write_text(json.dumps(seed, indent=1) + "\n")
    print({k: len(v) for k, v in seed.items()}, sum(len(v) for v in seed.values()))


if __name__ == "__main__":
    main()
