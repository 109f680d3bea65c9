"""Tools of the stock_trading domain: accounts, orders against a fixed price table, positions,
transfers, watchlists, alerts and corporate actions.

Money is USD cents, quantities whole shares, dates YYYY-MM-DD, timestamps YYYY-MM-DDTHH:MM:SS.
Prices are data: instruments.price_cents is the last price, never fetched live.
"""

from scaleenv_mcp.toolkit import (
    ConflictError,
    InvalidArgumentError,
    NotFoundError,
    NotPermittedError,
    optional_choice,
    optional_date,
    paginate,
    require_choice,
    require_permission,
    require_row,
)

COMMISSION_BPS = 5
MIN_COMMISSION_CENTS = 100
MAX_ORDER_QUANTITY = 100000
MAX_CASH_CENTS = 100000000
MAX_OPEN_ACCOUNTS = 4
MARGIN_EQUITY_PERCENT = 50
MAX_ACTIVE_ALERTS = 10
MAX_WATCHLISTS = 5
MAX_WATCHLIST_ITEMS = 20
MAX_NAME_LENGTH = 40
SIDES = ("buy", "sell")
ORDER_TYPES = ("market", "limit", "stop")
TIME_IN_FORCE = ("day", "gtc")
ORDER_STATUSES = ("open", "filled", "cancelled", "expired")
ACCOUNT_TYPES = ("cash", "margin")
ASSET_TYPES = ("stock", "etf")
EXCHANGES = ("NYSE", "NASDAQ", "ARCA")
INSTRUMENT_STATUSES = ("active", "halted", "delisted")
ALERT_DIRECTIONS = ("above", "below")
ALERT_STATUSES = ("active", "triggered", "cancelled")
ACTION_TYPES = ("dividend", "split")
ACTION_STATUSES = ("announced", "processed")
TRANSFER_TYPES = ("cash", "shares")
OPERATIONS_DESK = "operations"

# Permission rules: the same one line as each tool's `permission` in domain.json.
OWN_PROFILE = "an investor may only read their own profile"
OWN_NAME_ACCOUNT = "an investor may only open accounts in their own name"
HOLDER_READS_ACCOUNT = "only the account holder may read the account"
HOLDER_CLOSES = "only the account holder may close the account"
HOLDER_MARGIN = "only the account holder may change the account's margin limit"
HOLDER_DEPOSITS = "only the account holder may deposit into the account"
HOLDER_WITHDRAWS = "only the account holder may withdraw from the account"
HOLDER_TRANSFERS = "only the holder of the source account may transfer out of it"
HOLDER_READS_MOVEMENTS = "only the account holder may read the account's cash movements"
HOLDER_READS_TRANSFERS = "only the account holder may read the account's transfers"
HOLDER_READS_POSITIONS = "only the account holder may read the account's positions"
HOLDER_PREVIEWS = "only the account holder may preview an order on the account"
HOLDER_PLACES = "only the account holder may place orders on the account"
OWN_ORDERS = "an investor may only search the orders of their own accounts"
HOLDER_READS_ORDER = "only the holder of the order's account may read the order"
HOLDER_CANCELS = "only the holder of the order's account may cancel the order"
HOLDER_MODIFIES = "only the holder of the order's account may modify the order"
HOLDER_READS_EXECUTIONS = "only the account holder may read the account's executions"
OWN_WATCHLISTS = "an investor may only list their own watchlists"
OWNER_READS_WATCHLIST = "only the owner of the watchlist may read it"
OWN_NEW_WATCHLIST = "an investor may only create watchlists for themselves"
OWNER_CHANGES_WATCHLIST = "only the owner of the watchlist may change it"
OWN_ALERTS = "an investor may only list their own alerts"
OWN_NEW_ALERT = "an investor may only create alerts for themselves"
OWNER_CANCELS_ALERT = "only the owner of the alert may cancel it"
OWN_ALERT_CHECK = "an investor may only check their own alerts"
DESK_FILLS = "only active operations desk staff may fill a resting order"
DESK_EXPIRES = "only active operations desk staff may expire day orders"
DESK_DIVIDENDS = "only active operations desk staff may process a dividend"
DESK_SPLITS = "only active operations desk staff may process a split"

MOVEMENT_TYPES = ("deposit", "withdrawal", "transfer_in", "transfer_out", "buy", "sell", "dividend", "cash_in_lieu")

ACCOUNT_SQL = (
    "SELECT account_id, investor_id, account_type, nickname, status, cash_cents, reserved_cents, "
    "margin_limit_cents, opened_on, closed_on FROM accounts WHERE account_id = ?"
)
INVESTOR_SQL = (
    "SELECT investor_id, full_name, date_of_birth, email, phone, country, risk_profile, kyc_status, joined_on "
    "FROM investors WHERE investor_id = ?"
)
STAFF_SQL = "SELECT staff_id, full_name, email, desk, office, status, hired_on FROM staff WHERE staff_id = ?"
INSTRUMENT_SQL = (
    "SELECT instrument_id, symbol, name, asset_type, exchange, sector, price_cents, prev_close_cents, status "
    "FROM instruments WHERE instrument_id = ?"
)
ORDER_SQL = (
    "SELECT order_id, account_id, instrument_id, side, order_type, quantity, limit_price_cents, stop_price_cents, "
    "time_in_force, status, reserved_cents, placed_at, closed_at, note FROM orders WHERE order_id = ?"
)
POSITION_SQL = (
    "SELECT position_id, account_id, instrument_id, quantity, reserved_quantity, cost_basis_cents, opened_on "
    "FROM positions WHERE account_id = ? AND instrument_id = ?"
)


# -- helpers (not tools) ------------------------------------------------------------------------

def _investor(ctx, investor_id: str) -> dict:
    return require_row(ctx, INVESTOR_SQL, (investor_id,), f"no investor {investor_id}")


def _acting_investor(ctx, acting_investor_id: str) -> dict:
    """The investor the call acts for; not_found names the argument."""
    return require_row(ctx, INVESTOR_SQL, (acting_investor_id,),
                       f"acting_investor_id {acting_investor_id}: no such investor")


def _acting_desk(ctx, acting_staff_id: str, rule: str) -> dict:
    """The staff member the call acts for, who must be an active member of the operations desk."""
    member = require_row(ctx, STAFF_SQL, (acting_staff_id,), f"acting_staff_id {acting_staff_id}: no such staff member")
    require_permission(member["desk"] == OPERATIONS_DESK and member["status"] == "active", rule)
    return member


def _own_account(ctx, acting_investor_id: str, account_id: str, rule: str) -> dict:
    """The account, after checking that the acting investor holds it."""
    _acting_investor(ctx, acting_investor_id)
    account = _account(ctx, account_id)
    require_permission(account["investor_id"] == acting_investor_id, rule)
    return account


def _own_order(ctx, acting_investor_id: str, order_id: str, rule: str) -> dict:
    """The order, after checking that the acting investor holds its account."""
    _acting_investor(ctx, acting_investor_id)
    order = _order(ctx, order_id)
    holder = _account(ctx, order["account_id"])["investor_id"]
    require_permission(holder == acting_investor_id, rule)
    return order


def _own_watchlist(ctx, acting_investor_id: str, watchlist_id: str, rule: str) -> dict:
    _acting_investor(ctx, acting_investor_id)
    watchlist = require_row(ctx, "SELECT watchlist_id, investor_id, name, created_on FROM watchlists "
                            "WHERE watchlist_id = ?", (watchlist_id,), f"no watchlist {watchlist_id}")
    require_permission(watchlist["investor_id"] == acting_investor_id, rule)
    return watchlist


def _self(ctx, acting_investor_id: str, investor_id: str, rule: str) -> dict:
    """The investor named by investor_id, who must be the acting investor."""
    _acting_investor(ctx, acting_investor_id)
    investor = _investor(ctx, investor_id)
    require_permission(investor_id == acting_investor_id, rule)
    return investor


def _account(ctx, account_id: str) -> dict:
    return require_row(ctx, ACCOUNT_SQL, (account_id,), f"no account {account_id}")


def _instrument(ctx, instrument_id: str) -> dict:
    return require_row(ctx, INSTRUMENT_SQL, (instrument_id,), f"no instrument {instrument_id}")


def _order(ctx, order_id: str) -> dict:
    return require_row(ctx, ORDER_SQL, (order_id,), f"no order {order_id}")


def _commission(notional: int) -> int:
    return max(MIN_COMMISSION_CENTS, (notional * COMMISSION_BPS + 9999) // 10000)


def _buying_power(account: dict) -> int:
    return account["cash_cents"] - account["reserved_cents"] + account["margin_limit_cents"]


def _positions_value(ctx, account_id: str) -> int:
    row = ctx.db.fetch_one(
        "SELECT coalesce(sum(p.quantity * i.price_cents), 0) AS v FROM positions p "
        "JOIN instruments i ON i.instrument_id = p.instrument_id WHERE p.account_id = ?", (account_id,))
    return row["v"]


def _require_trading(ctx, account: dict) -> None:
    if account["status"] != "active":
        raise NotPermittedError(f"account {account['account_id']} is {account['status']}: no trading or transfers")
    investor = _investor(ctx, account["investor_id"])
    if investor["kyc_status"] != "verified":
        raise NotPermittedError(f"investor {investor['investor_id']} has KYC status {investor['kyc_status']}: "
                                "identity must be verified first")


def _require_tradable(instrument: dict) -> None:
    if instrument["status"] != "active":
        raise ConflictError(f"{instrument['symbol']} is {instrument['status']}: it cannot be traded now")


def _ledger(ctx, account_id: str, kind: str, amount: int, reference_id, description: str) -> str:
    movement_id = ctx.new_id("CM")
    ctx.db.execute(
        "INSERT INTO cash_movements (movement_id, account_id, movement_type, amount_cents, reference_id, "
        "occurred_at, description) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (movement_id, account_id, kind, amount, reference_id, ctx.now, description))
    return movement_id


def _terms(instrument: dict, side: str, order_type: str, quantity: int, limit_price_cents, stop_price_cents) -> dict:
    """Validate order arguments; say whether it executes now and what it costs or reserves."""
    require_choice(side, SIDES, "side")
    require_choice(order_type, ORDER_TYPES, "order_type")
    if quantity < 1 or quantity > MAX_ORDER_QUANTITY:
        raise InvalidArgumentError(f"quantity must be a whole number of shares from 1 to {MAX_ORDER_QUANTITY}")
    price = instrument["price_cents"]
    if order_type == "market" and (limit_price_cents is not None or stop_price_cents is not None):
        raise InvalidArgumentError("a market order takes neither limit_price_cents nor stop_price_cents")
    if order_type == "limit" and (limit_price_cents is None or stop_price_cents is not None):
        raise InvalidArgumentError("a limit order needs limit_price_cents and no stop_price_cents")
    if order_type == "stop" and (stop_price_cents is None or limit_price_cents is not None):
        raise InvalidArgumentError("a stop order needs stop_price_cents and no limit_price_cents")
    for value in (limit_price_cents, stop_price_cents):
        if value is not None and value <= 0:
            raise InvalidArgumentError("prices must be positive USD cents")
    if order_type == "stop":
        if side == "buy" and stop_price_cents <= price:
            raise InvalidArgumentError(f"a buy stop must be above the last price {price}; use a market or limit order")
        if side == "sell" and stop_price_cents >= price:
            raise InvalidArgumentError(f"a sell stop must be below the last price {price}; use a market or limit order")
    if order_type == "market":
        executes = True
    elif order_type == "limit":
        executes = price <= limit_price_cents if side == "buy" else price >= limit_price_cents
    else:
        executes = False
    reference = price if executes else (limit_price_cents if order_type == "limit" else stop_price_cents)
    notional = quantity * reference
    fee = _commission(notional)
    return {"executes": executes, "price": reference, "notional": notional, "commission": fee,
            "total": notional + fee if side == "buy" else notional - fee}


def _marketable(order: dict, price: int) -> bool:
    if order["order_type"] == "limit":
        return price <= order["limit_price_cents"] if order["side"] == "buy" else price >= order["limit_price_cents"]
    if order["order_type"] == "stop":
        return price >= order["stop_price_cents"] if order["side"] == "buy" else price <= order["stop_price_cents"]
    return True


def _execute(ctx, account: dict, instrument: dict, order_id: str, side: str, quantity: int) -> dict:
    """Fill at the last price: execution, position, cash and ledger. Reservations released by the caller."""
    price = instrument["price_cents"]
    notional = quantity * price
    fee = _commission(notional)
    execution_id = ctx.new_id("EXE")
    ctx.db.execute(
        "INSERT INTO executions (execution_id, order_id, account_id, instrument_id, side, quantity, price_cents, "
        "commission_cents, executed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (execution_id, order_id, account["account_id"], instrument["instrument_id"], side, quantity, price, fee,
         ctx.now))
    position = ctx.db.fetch_one(POSITION_SQL, (account["account_id"], instrument["instrument_id"]))
    realized = None
    if side == "buy":
        amount = -(notional + fee)
        if position is None:
            ctx.db.execute(
                "INSERT INTO positions (position_id, account_id, instrument_id, quantity, reserved_quantity, "
                "cost_basis_cents, opened_on) VALUES (?, ?, ?, ?, 0, ?, ?)",
                (ctx.new_id("POS"), account["account_id"], instrument["instrument_id"], quantity, notional + fee,
                 ctx.today))
        else:
            ctx.db.execute("UPDATE positions SET quantity = quantity + ?, cost_basis_cents = cost_basis_cents + ? "
                           "WHERE position_id = ?", (quantity, notional + fee, position["position_id"]))
        text = f"Bought {quantity} {instrument['symbol']}"
    else:
        amount = notional - fee
        cost = position["cost_basis_cents"] * quantity // position["quantity"]
        realized = amount - cost
        if quantity == position["quantity"]:
            ctx.db.execute("DELETE FROM positions WHERE position_id = ?", (position["position_id"],))
        else:
            ctx.db.execute("UPDATE positions SET quantity = quantity - ?, cost_basis_cents = cost_basis_cents - ? "
                           "WHERE position_id = ?", (quantity, cost, position["position_id"]))
        text = f"Sold {quantity} {instrument['symbol']}"
    ctx.db.execute("UPDATE accounts SET cash_cents = cash_cents + ? WHERE account_id = ?",
                   (amount, account["account_id"]))
    _ledger(ctx, account["account_id"], side, amount, order_id, text)
    return {"execution_id": execution_id, "fill_price_cents": price, "commission_cents": fee,
            "cash_change_cents": amount, "realized_pnl_cents": realized}


def _release(ctx, order: dict) -> None:
    """Give back what an open order holds, never below nothing (a book that lost track stays valid)."""
    if order["side"] == "buy":
        ctx.db.execute("UPDATE accounts SET reserved_cents = MAX(0, reserved_cents - ?) WHERE account_id = ?",
                       (order["reserved_cents"], order["account_id"]))
    else:
        ctx.db.execute("UPDATE positions SET reserved_quantity = MAX(0, reserved_quantity - ?) "
                       "WHERE account_id = ? AND instrument_id = ?",
                       (order["quantity"], order["account_id"], order["instrument_id"]))


def _same_owner(ctx, from_account_id: str, to_account_id: str) -> tuple:
    if from_account_id == to_account_id:
        raise InvalidArgumentError("from_account_id and to_account_id must differ")
    source = _account(ctx, from_account_id)
    target = _account(ctx, to_account_id)
    if source["investor_id"] != target["investor_id"]:
        raise NotPermittedError("transfers are only allowed between accounts of the same investor")
    for account in (source, target):
        if account["status"] != "active":
            raise NotPermittedError(f"account {account['account_id']} is {account['status']}")
    return source, target


# -- investors and accounts --------------------------------------------------------------------

def identify_investor(ctx, email: str | None = None, full_name: str | None = None,
                      date_of_birth: str | None = None) -> dict:
    born = optional_date(date_of_birth, "date_of_birth")
    if email is None and full_name is None:
        raise InvalidArgumentError("give the investor's email, or full_name with date_of_birth")
    name = None if full_name is None else " ".join(full_name.split())
    rows = ctx.db.fetch_all(
        "SELECT investor_id, full_name, date_of_birth, email, country, kyc_status FROM investors "
        "WHERE (? IS NULL OR lower(email) = lower(?)) AND (? IS NULL OR lower(full_name) = lower(?)) "
        "AND (? IS NULL OR date_of_birth = ?) ORDER BY investor_id",
        (email, email, name, name, born, born))
    if not rows:
        raise NotFoundError("no investor matches the details given; check the spelling or ask for the email")
    if len(rows) > 1:
        missing = "the email" if born is not None else "the date of birth or the email"
        raise InvalidArgumentError(f"{len(rows)} investors are named {rows[0]['full_name']}; ask for {missing}")
    return rows[0]


def identify_staff(ctx, email: str | None = None, full_name: str | None = None) -> dict:
    if email is None and full_name is None:
        raise InvalidArgumentError("give the staff member's work email or full_name")
    name = None if full_name is None else " ".join(full_name.split())
    rows = ctx.db.fetch_all(
        "SELECT staff_id, full_name, email, desk, office, status FROM staff "
        "WHERE (? IS NULL OR lower(email) = lower(?)) AND (? IS NULL OR lower(full_name) = lower(?)) "
        "ORDER BY staff_id", (email, email, name, name))
    if not rows:
        raise NotFoundError("no staff member matches the details given; ask for the work email")
    if len(rows) > 1:
        raise InvalidArgumentError(f"{len(rows)} staff members are named {rows[0]['full_name']}; "
                                   "ask for the work email")
    return rows[0]


def get_investor(ctx, acting_investor_id: str, investor_id: str) -> dict:
    investor = _self(ctx, acting_investor_id, investor_id, OWN_PROFILE)
    investor["accounts"] = ctx.db.fetch_all(
        "SELECT account_id, account_type, nickname, status, cash_cents FROM accounts WHERE investor_id = ? "
        "ORDER BY account_id", (investor_id,))
    return investor


def get_account(ctx, acting_investor_id: str, account_id: str) -> dict:
    account = _own_account(ctx, acting_investor_id, account_id, HOLDER_READS_ACCOUNT)
    value = _positions_value(ctx, account_id)
    open_orders = ctx.db.fetch_one("SELECT count(*) AS n FROM orders WHERE account_id = ? AND status = 'open'",
                                   (account_id,))["n"]
    account["available_cash_cents"] = max(0, account["cash_cents"] - account["reserved_cents"])
    account["buying_power_cents"] = max(0, _buying_power(account))
    account["positions_value_cents"] = value
    account["equity_cents"] = account["cash_cents"] + value
    account["open_orders"] = open_orders
    return account


def open_account(ctx, acting_investor_id: str, investor_id: str, account_type: str, nickname: str) -> dict:
    investor = _self(ctx, acting_investor_id, investor_id, OWN_NAME_ACCOUNT)
    require_choice(account_type, ACCOUNT_TYPES, "account_type")
    name = nickname.strip()
    if not name or len(name) > MAX_NAME_LENGTH:
        raise InvalidArgumentError(f"nickname must be 1 to {MAX_NAME_LENGTH} characters")
    if investor["kyc_status"] != "verified":
        raise NotPermittedError(f"investor {investor_id} has KYC status {investor['kyc_status']}")
    if account_type == "margin" and investor["risk_profile"] == "conservative":
        raise NotPermittedError("margin accounts are not available to investors with a conservative risk profile")
    held = ctx.db.fetch_all("SELECT account_id, nickname FROM accounts WHERE investor_id = ? AND status <> 'closed'",
                            (investor_id,))
    if len(held) >= MAX_OPEN_ACCOUNTS:
        raise ConflictError(f"investor already has {len(held)} open accounts (limit {MAX_OPEN_ACCOUNTS})")
    for row in held:
        if row["nickname"].lower() == name.lower():
            raise ConflictError(f"account {row['account_id']} already uses the nickname {row['nickname']!r}")
    account_id = ctx.new_id("ACC")
    ctx.db.execute(
        "INSERT INTO accounts (account_id, investor_id, account_type, nickname, status, cash_cents, reserved_cents, "
        "margin_limit_cents, opened_on, closed_on) VALUES (?, ?, ?, ?, 'active', 0, 0, 0, ?, NULL)",
        (account_id, investor_id, account_type, name, ctx.today))
    return {"account_id": account_id, "investor_id": investor_id, "account_type": account_type, "nickname": name,
            "status": "active", "opened_on": ctx.today}


def close_account(ctx, acting_investor_id: str, account_id: str) -> dict:
    account = _own_account(ctx, acting_investor_id, account_id, HOLDER_CLOSES)
    if account["status"] == "closed":
        raise ConflictError(f"account {account_id} is already closed")
    held = ctx.db.fetch_one("SELECT count(*) AS n FROM positions WHERE account_id = ?", (account_id,))["n"]
    if held > 0:
        raise ConflictError(f"account {account_id} still holds {held} positions: sell or transfer them first")
    open_orders = ctx.db.fetch_one("SELECT count(*) AS n FROM orders WHERE account_id = ? AND status = 'open'",
                                   (account_id,))["n"]
    if open_orders > 0:
        raise ConflictError(f"account {account_id} has {open_orders} open orders: cancel them first")
    if account["cash_cents"] != 0:
        raise ConflictError(f"account {account_id} cash balance is {account['cash_cents']} cents, not zero: "
                            "withdraw, transfer or repay first")
    ctx.db.execute("UPDATE accounts SET status = 'closed', closed_on = ? WHERE account_id = ?",
                   (ctx.today, account_id))
    return {"account_id": account_id, "status": "closed", "closed_on": ctx.today}


def update_margin_limit(ctx, acting_investor_id: str, account_id: str, margin_limit_cents: int) -> dict:
    account = _own_account(ctx, acting_investor_id, account_id, HOLDER_MARGIN)
    if margin_limit_cents < 0:
        raise InvalidArgumentError("margin_limit_cents must be 0 or more")
    if account["account_type"] != "margin":
        raise NotPermittedError(f"account {account_id} is a cash account: only margin accounts have a margin limit")
    if account["status"] != "active":
        raise NotPermittedError(f"account {account_id} is {account['status']}")
    equity = account["cash_cents"] + _positions_value(ctx, account_id)
    ceiling = max(0, equity * MARGIN_EQUITY_PERCENT // 100)
    if margin_limit_cents > ceiling:
        raise ConflictError(f"margin limit may be at most {MARGIN_EQUITY_PERCENT}% of equity: {ceiling} cents")
    floor = account["reserved_cents"] - account["cash_cents"]
    if margin_limit_cents < floor:
        raise ConflictError(f"margin limit must cover current borrowing and reservations: at least {floor} cents")
    ctx.db.execute("UPDATE accounts SET margin_limit_cents = ? WHERE account_id = ?", (margin_limit_cents, account_id))
    return {"account_id": account_id, "margin_limit_cents": margin_limit_cents, "max_margin_limit_cents": ceiling,
            "buying_power_cents": account["cash_cents"] - account["reserved_cents"] + margin_limit_cents}


# -- cash ------------------------------------------------------------------------------------------

def deposit_cash(ctx, acting_investor_id: str, account_id: str, amount_cents: int,
                 description: str | None = None) -> dict:
    account = _own_account(ctx, acting_investor_id, account_id, HOLDER_DEPOSITS)
    if amount_cents < 1 or amount_cents > MAX_CASH_CENTS:
        raise InvalidArgumentError(f"amount_cents must be from 1 to {MAX_CASH_CENTS}")
    if account["status"] == "closed":
        raise ConflictError(f"account {account_id} is closed")
    ctx.db.execute("UPDATE accounts SET cash_cents = cash_cents + ? WHERE account_id = ?", (amount_cents, account_id))
    movement_id = _ledger(ctx, account_id, "deposit", amount_cents, None, description or "ACH deposit")
    return {"movement_id": movement_id, "account_id": account_id, "cash_cents": account["cash_cents"] + amount_cents}


def withdraw_cash(ctx, acting_investor_id: str, account_id: str, amount_cents: int) -> dict:
    account = _own_account(ctx, acting_investor_id, account_id, HOLDER_WITHDRAWS)
    if amount_cents < 1 or amount_cents > MAX_CASH_CENTS:
        raise InvalidArgumentError(f"amount_cents must be from 1 to {MAX_CASH_CENTS}")
    _require_trading(ctx, account)
    available = account["cash_cents"] - account["reserved_cents"]
    if amount_cents > available:
        raise ConflictError(f"only {max(0, available)} cents of settled cash are free to withdraw "
                            "(margin and reserved cash cannot be withdrawn)")
    ctx.db.execute("UPDATE accounts SET cash_cents = cash_cents - ? WHERE account_id = ?", (amount_cents, account_id))
    movement_id = _ledger(ctx, account_id, "withdrawal", -amount_cents, None, "Withdrawal to bank")
    return {"movement_id": movement_id, "account_id": account_id, "cash_cents": account["cash_cents"] - amount_cents}


def transfer_cash(ctx, acting_investor_id: str, from_account_id: str, to_account_id: str, amount_cents: int,
                  memo: str | None = None) -> dict:
    _own_account(ctx, acting_investor_id, from_account_id, HOLDER_TRANSFERS)
    if amount_cents < 1 or amount_cents > MAX_CASH_CENTS:
        raise InvalidArgumentError(f"amount_cents must be from 1 to {MAX_CASH_CENTS}")
    source, target = _same_owner(ctx, from_account_id, to_account_id)
    available = source["cash_cents"] - source["reserved_cents"]
    if amount_cents > available:
        raise ConflictError(f"only {max(0, available)} cents are free to transfer from {from_account_id}")
    transfer_id = ctx.new_id("TRF")
    ctx.db.execute(
        "INSERT INTO transfers (transfer_id, from_account_id, to_account_id, transfer_type, amount_cents, "
        "instrument_id, quantity, requested_at, memo) VALUES (?, ?, ?, 'cash', ?, NULL, NULL, ?, ?)",
        (transfer_id, from_account_id, to_account_id, amount_cents, ctx.now, memo))
    ctx.db.execute("UPDATE accounts SET cash_cents = cash_cents - ? WHERE account_id = ?",
                   (amount_cents, from_account_id))
    ctx.db.execute("UPDATE accounts SET cash_cents = cash_cents + ? WHERE account_id = ?",
                   (amount_cents, to_account_id))
    _ledger(ctx, from_account_id, "transfer_out", -amount_cents, transfer_id, f"Transfer to {to_account_id}")
    _ledger(ctx, to_account_id, "transfer_in", amount_cents, transfer_id, f"Transfer from {from_account_id}")
    return {"transfer_id": transfer_id, "from_account_id": from_account_id, "to_account_id": to_account_id,
            "amount_cents": amount_cents, "from_cash_cents": source["cash_cents"] - amount_cents,
            "to_cash_cents": target["cash_cents"] + amount_cents}


def transfer_shares(ctx, acting_investor_id: str, from_account_id: str, to_account_id: str, instrument_id: str,
                    quantity: int, memo: str | None = None) -> dict:
    _own_account(ctx, acting_investor_id, from_account_id, HOLDER_TRANSFERS)
    if quantity < 1:
        raise InvalidArgumentError("quantity must be at least 1 share")
    _same_owner(ctx, from_account_id, to_account_id)
    instrument = _instrument(ctx, instrument_id)
    position = require_row(ctx, POSITION_SQL, (from_account_id, instrument_id),
                           f"account {from_account_id} holds no {instrument['symbol']}")
    available = position["quantity"] - position["reserved_quantity"]
    if quantity > available:
        raise ConflictError(f"only {available} {instrument['symbol']} shares are free (the rest back open sell orders)")
    cost = position["cost_basis_cents"] * quantity // position["quantity"]
    if quantity == position["quantity"]:
        ctx.db.execute("DELETE FROM positions WHERE position_id = ?", (position["position_id"],))
    else:
        ctx.db.execute("UPDATE positions SET quantity = quantity - ?, cost_basis_cents = cost_basis_cents - ? "
                       "WHERE position_id = ?", (quantity, cost, position["position_id"]))
    target = ctx.db.fetch_one(POSITION_SQL, (to_account_id, instrument_id))
    if target is None:
        ctx.db.execute(
            "INSERT INTO positions (position_id, account_id, instrument_id, quantity, reserved_quantity, "
            "cost_basis_cents, opened_on) VALUES (?, ?, ?, ?, 0, ?, ?)",
            (ctx.new_id("POS"), to_account_id, instrument_id, quantity, cost, ctx.today))
    else:
        ctx.db.execute("UPDATE positions SET quantity = quantity + ?, cost_basis_cents = cost_basis_cents + ? "
                       "WHERE position_id = ?", (quantity, cost, target["position_id"]))
    transfer_id = ctx.new_id("TRF")
    ctx.db.execute(
        "INSERT INTO transfers (transfer_id, from_account_id, to_account_id, transfer_type, amount_cents, "
        "instrument_id, quantity, requested_at, memo) VALUES (?, ?, ?, 'shares', NULL, ?, ?, ?, ?)",
        (transfer_id, from_account_id, to_account_id, instrument_id, quantity, ctx.now, memo))
    return {"transfer_id": transfer_id, "from_account_id": from_account_id, "to_account_id": to_account_id,
            "instrument_id": instrument_id, "quantity": quantity, "cost_basis_moved_cents": cost}


def list_cash_movements(ctx, acting_investor_id: str, account_id: str, movement_type: str | None = None,
                        date_from: str | None = None, date_to: str | None = None, limit: int = 20,
                        offset: int = 0) -> dict:
    _own_account(ctx, acting_investor_id, account_id, HOLDER_READS_MOVEMENTS)
    optional_choice(movement_type, MOVEMENT_TYPES, "movement_type")
    start, end = optional_date(date_from, "date_from"), optional_date(date_to, "date_to")
    rows = ctx.db.fetch_all(
        "SELECT movement_id, account_id, movement_type, amount_cents, reference_id, occurred_at, description "
        "FROM cash_movements WHERE account_id = ? AND (? IS NULL OR movement_type = ?) "
        "AND (? IS NULL OR substr(occurred_at, 1, 10) >= ?) AND (? IS NULL OR substr(occurred_at, 1, 10) <= ?) "
        "ORDER BY occurred_at DESC, movement_id DESC",
        (account_id, movement_type, movement_type, start, start, end, end))
    return paginate(rows, limit, offset)


def list_transfers(ctx, acting_investor_id: str, account_id: str, transfer_type: str | None = None,
                   date_from: str | None = None, date_to: str | None = None, limit: int = 20,
                   offset: int = 0) -> dict:
    _own_account(ctx, acting_investor_id, account_id, HOLDER_READS_TRANSFERS)
    optional_choice(transfer_type, TRANSFER_TYPES, "transfer_type")
    start, end = optional_date(date_from, "date_from"), optional_date(date_to, "date_to")
    rows = ctx.db.fetch_all(
        "SELECT transfer_id, from_account_id, to_account_id, transfer_type, amount_cents, instrument_id, quantity, "
        "requested_at, memo FROM transfers WHERE (from_account_id = ? OR to_account_id = ?) "
        "AND (? IS NULL OR transfer_type = ?) AND (? IS NULL OR substr(requested_at, 1, 10) >= ?) "
        "AND (? IS NULL OR substr(requested_at, 1, 10) <= ?) ORDER BY requested_at DESC, transfer_id DESC",
        (account_id, account_id, transfer_type, transfer_type, start, start, end, end))
    return paginate(rows, limit, offset)


# -- instruments and positions ---------------------------------------------------------------------

def find_instruments(ctx, text: str | None = None, asset_type: str | None = None, sector: str | None = None,
                     exchange: str | None = None, status: str | None = None, min_price_cents: int | None = None,
                     max_price_cents: int | None = None, limit: int = 20, offset: int = 0) -> dict:
    optional_choice(asset_type, ASSET_TYPES, "asset_type")
    optional_choice(exchange, EXCHANGES, "exchange")
    optional_choice(status, INSTRUMENT_STATUSES, "status")
    rows = ctx.db.fetch_all(
        "SELECT instrument_id, symbol, name, asset_type, exchange, sector, price_cents, status FROM instruments "
        "WHERE (? IS NULL OR symbol = upper(?) OR name LIKE '%' || ? || '%') AND (? IS NULL OR asset_type = ?) "
        "AND (? IS NULL OR lower(sector) = lower(?)) AND (? IS NULL OR exchange = ?) AND (? IS NULL OR status = ?) "
        "AND (? IS NULL OR price_cents >= ?) AND (? IS NULL OR price_cents <= ?) ORDER BY symbol",
        (text, text, text, asset_type, asset_type, sector, sector, exchange, exchange, status, status,
         min_price_cents, min_price_cents, max_price_cents, max_price_cents))
    return paginate(rows, limit, offset)


def get_instrument(ctx, instrument_id: str) -> dict:
    instrument = _instrument(ctx, instrument_id)
    instrument["change_cents"] = instrument["price_cents"] - instrument["prev_close_cents"]
    instrument["upcoming_actions"] = ctx.db.fetch_all(
        "SELECT action_id, action_type, ex_date, pay_date, amount_per_share_cents, split_from, split_to, status "
        "FROM corporate_actions WHERE instrument_id = ? AND status = 'announced' ORDER BY ex_date, action_id",
        (instrument_id,))
    return instrument


def list_positions(ctx, acting_investor_id: str, account_id: str) -> dict:
    _own_account(ctx, acting_investor_id, account_id, HOLDER_READS_POSITIONS)
    rows = ctx.db.fetch_all(
        "SELECT p.position_id, p.account_id, p.instrument_id, i.symbol, p.quantity, p.reserved_quantity, "
        "p.cost_basis_cents, i.price_cents, p.quantity * i.price_cents AS market_value_cents, "
        "p.quantity * i.price_cents - p.cost_basis_cents AS unrealized_pnl_cents, p.opened_on "
        "FROM positions p JOIN instruments i ON i.instrument_id = p.instrument_id WHERE p.account_id = ? "
        "ORDER BY i.symbol", (account_id,))
    return {"items": rows, "market_value_cents": sum(r["market_value_cents"] for r in rows),
            "unrealized_pnl_cents": sum(r["unrealized_pnl_cents"] for r in rows)}


# -- orders ----------------------------------------------------------------------------------------

def preview_order(ctx, acting_investor_id: str, account_id: str, instrument_id: str, side: str, order_type: str,
                  quantity: int, limit_price_cents: int | None = None, stop_price_cents: int | None = None) -> dict:
    account = _own_account(ctx, acting_investor_id, account_id, HOLDER_PREVIEWS)
    instrument = _instrument(ctx, instrument_id)
    terms = _terms(instrument, side, order_type, quantity, limit_price_cents, stop_price_cents)
    position = ctx.db.fetch_one(POSITION_SQL, (account_id, instrument_id))
    available = 0 if position is None else position["quantity"] - position["reserved_quantity"]
    power = _buying_power(account)
    enough = terms["total"] <= power if side == "buy" else quantity <= available
    return {"account_id": account_id, "instrument_id": instrument_id, "would_execute_now": terms["executes"],
            "estimated_price_cents": terms["price"], "estimated_commission_cents": terms["commission"],
            "estimated_total_cents": terms["total"], "buying_power_cents": max(0, power),
            "available_quantity": available, "sufficient": enough,
            "tradable": instrument["status"] == "active" and account["status"] == "active"}


def place_order(ctx, acting_investor_id: str, account_id: str, instrument_id: str, side: str, order_type: str,
                quantity: int, limit_price_cents: int | None = None, stop_price_cents: int | None = None,
                time_in_force: str = "day", note: str | None = None) -> dict:
    account = _own_account(ctx, acting_investor_id, account_id, HOLDER_PLACES)
    require_choice(time_in_force, TIME_IN_FORCE, "time_in_force")
    instrument = _instrument(ctx, instrument_id)
    terms = _terms(instrument, side, order_type, quantity, limit_price_cents, stop_price_cents)
    _require_trading(ctx, account)
    _require_tradable(instrument)
    reserve = 0
    if side == "buy":
        if terms["total"] > _buying_power(account):
            raise ConflictError(f"order needs {terms['total']} cents but buying power is "
                                f"{max(0, _buying_power(account))} cents")
        reserve = 0 if terms["executes"] else terms["total"]
    else:
        position = ctx.db.fetch_one(POSITION_SQL, (account_id, instrument_id))
        available = 0 if position is None else position["quantity"] - position["reserved_quantity"]
        if quantity > available:
            raise ConflictError(f"only {available} {instrument['symbol']} shares are free to sell; short selling "
                                "is not allowed")
    order_id = ctx.new_id("ORD")
    ctx.db.execute(
        "INSERT INTO orders (order_id, account_id, instrument_id, side, order_type, quantity, limit_price_cents, "
        "stop_price_cents, time_in_force, status, reserved_cents, placed_at, closed_at, note) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (order_id, account_id, instrument_id, side, order_type, quantity, limit_price_cents, stop_price_cents,
         time_in_force, "filled" if terms["executes"] else "open", reserve, ctx.now,
         ctx.now if terms["executes"] else None, note))
    result = {"order_id": order_id, "account_id": account_id, "instrument_id": instrument_id,
              "status": "filled" if terms["executes"] else "open", "reserved_cents": reserve,
              "execution_id": None, "fill_price_cents": None, "commission_cents": None}
    if terms["executes"]:
        fill = _execute(ctx, account, instrument, order_id, side, quantity)
        result["execution_id"] = fill["execution_id"]
        result["fill_price_cents"] = fill["fill_price_cents"]
        result["commission_cents"] = fill["commission_cents"]
    elif side == "buy":
        ctx.db.execute("UPDATE accounts SET reserved_cents = reserved_cents + ? WHERE account_id = ?",
                       (reserve, account_id))
    else:
        ctx.db.execute("UPDATE positions SET reserved_quantity = reserved_quantity + ? "
                       "WHERE account_id = ? AND instrument_id = ?", (quantity, account_id, instrument_id))
    return result


def find_orders(ctx, acting_investor_id: str, account_id: str | None = None, instrument_id: str | None = None,
                status: str | None = None, side: str | None = None, order_type: str | None = None,
                placed_from: str | None = None, placed_to: str | None = None, limit: int = 20,
                offset: int = 0) -> dict:
    _acting_investor(ctx, acting_investor_id)
    if account_id is not None:
        _own_account(ctx, acting_investor_id, account_id, OWN_ORDERS)
    optional_choice(status, ORDER_STATUSES, "status")
    optional_choice(side, SIDES, "side")
    optional_choice(order_type, ORDER_TYPES, "order_type")
    start, end = optional_date(placed_from, "placed_from"), optional_date(placed_to, "placed_to")
    rows = ctx.db.fetch_all(
        "SELECT o.order_id, o.account_id, o.instrument_id, i.symbol, o.side, o.order_type, o.quantity, "
        "o.limit_price_cents, o.stop_price_cents, o.time_in_force, o.status, o.placed_at FROM orders o "
        "JOIN instruments i ON i.instrument_id = o.instrument_id JOIN accounts a ON a.account_id = o.account_id "
        "WHERE a.investor_id = ? "
        "AND (? IS NULL OR o.account_id = ?) AND (? IS NULL OR o.instrument_id = ?) AND (? IS NULL OR o.status = ?) "
        "AND (? IS NULL OR o.side = ?) AND (? IS NULL OR o.order_type = ?) "
        "AND (? IS NULL OR substr(o.placed_at, 1, 10) >= ?) AND (? IS NULL OR substr(o.placed_at, 1, 10) <= ?) "
        "ORDER BY o.placed_at DESC, o.order_id DESC",
        (acting_investor_id, account_id, account_id, instrument_id, instrument_id, status, status, side, side,
         order_type, order_type, start, start, end, end))
    return paginate(rows, limit, offset)


def get_order(ctx, acting_investor_id: str, order_id: str) -> dict:
    order = _own_order(ctx, acting_investor_id, order_id, HOLDER_READS_ORDER)
    order["executions"] = ctx.db.fetch_all(
        "SELECT execution_id, quantity, price_cents, commission_cents, executed_at FROM executions "
        "WHERE order_id = ? ORDER BY execution_id", (order_id,))
    return order


def cancel_order(ctx, acting_investor_id: str, order_id: str) -> dict:
    order = _own_order(ctx, acting_investor_id, order_id, HOLDER_CANCELS)
    if order["status"] != "open":
        raise ConflictError(f"order {order_id} is {order['status']}: only open orders can be cancelled")
    _release(ctx, order)
    ctx.db.execute("UPDATE orders SET status = 'cancelled', closed_at = ?, reserved_cents = 0 WHERE order_id = ?",
                   (ctx.now, order_id))
    return {"order_id": order_id, "account_id": order["account_id"], "status": "cancelled",
            "released_cents": order["reserved_cents"],
            "released_quantity": order["quantity"] if order["side"] == "sell" else 0}


def modify_order(ctx, acting_investor_id: str, order_id: str, quantity: int, limit_price_cents: int | None = None,
                 stop_price_cents: int | None = None) -> dict:
    order = _own_order(ctx, acting_investor_id, order_id, HOLDER_MODIFIES)
    if order["status"] != "open":
        raise ConflictError(f"order {order_id} is {order['status']}: only open orders can be modified")
    if order["time_in_force"] == "day" and order["placed_at"][:10] < ctx.today:
        raise ConflictError(f"day order {order_id} expired at the close of {order['placed_at'][:10]}")
    account = _account(ctx, order["account_id"])
    instrument = _instrument(ctx, order["instrument_id"])
    terms = _terms(instrument, order["side"], order["order_type"], quantity, limit_price_cents, stop_price_cents)
    _require_trading(ctx, account)
    reserve = 0
    if order["side"] == "buy":
        reserve = quantity * terms["price"] + _commission(quantity * terms["price"])
        if reserve > _buying_power(account) + order["reserved_cents"]:
            raise ConflictError(f"the modified order needs {reserve} cents reserved; buying power is too low")
        ctx.db.execute("UPDATE accounts SET reserved_cents = reserved_cents - ? + ? WHERE account_id = ?",
                       (order["reserved_cents"], reserve, account["account_id"]))
    else:
        position = ctx.db.fetch_one(POSITION_SQL, (account["account_id"], instrument["instrument_id"]))
        available = position["quantity"] - position["reserved_quantity"] + order["quantity"]
        if quantity > available:
            raise ConflictError(f"only {available} shares can back this sell order")
        ctx.db.execute("UPDATE positions SET reserved_quantity = reserved_quantity - ? + ? WHERE position_id = ?",
                       (order["quantity"], quantity, position["position_id"]))
    ctx.db.execute("UPDATE orders SET quantity = ?, limit_price_cents = ?, stop_price_cents = ?, reserved_cents = ? "
                   "WHERE order_id = ?", (quantity, limit_price_cents, stop_price_cents, reserve, order_id))
    return {"order_id": order_id, "account_id": account["account_id"], "quantity": quantity,
            "limit_price_cents": limit_price_cents, "stop_price_cents": stop_price_cents, "reserved_cents": reserve,
            "marketable_now": _marketable(dict(order, limit_price_cents=limit_price_cents,
                                               stop_price_cents=stop_price_cents), instrument["price_cents"])}


def fill_order(ctx, acting_staff_id: str, order_id: str) -> dict:
    _acting_desk(ctx, acting_staff_id, DESK_FILLS)
    order = _order(ctx, order_id)
    if order["status"] != "open":
        raise ConflictError(f"order {order_id} is {order['status']}: only open orders can fill")
    if order["time_in_force"] == "day" and order["placed_at"][:10] < ctx.today:
        raise ConflictError(f"day order {order_id} expired at the close of {order['placed_at'][:10]}; "
                            "run expire_day_orders")
    account = _account(ctx, order["account_id"])
    instrument = _instrument(ctx, order["instrument_id"])
    _require_trading(ctx, account)
    _require_tradable(instrument)
    if not _marketable(order, instrument["price_cents"]):
        raise ConflictError(f"order {order_id} is not marketable at the last price {instrument['price_cents']}")
    _release(ctx, order)
    if order["side"] == "buy":
        cost = order["quantity"] * instrument["price_cents"] + _commission(order["quantity"] * instrument["price_cents"])
        power = _buying_power(account) + order["reserved_cents"]
        if cost > power:
            raise ConflictError(f"filling needs {cost} cents but buying power is {power} cents")
    ctx.db.execute("UPDATE orders SET status = 'filled', closed_at = ?, reserved_cents = 0 WHERE order_id = ?",
                   (ctx.now, order_id))
    fill = _execute(ctx, account, instrument, order_id, order["side"], order["quantity"])
    return {"order_id": order_id, "account_id": account["account_id"], "status": "filled",
            "execution_id": fill["execution_id"], "fill_price_cents": fill["fill_price_cents"],
            "commission_cents": fill["commission_cents"], "cash_change_cents": fill["cash_change_cents"],
            "realized_pnl_cents": fill["realized_pnl_cents"]}


def expire_day_orders(ctx, acting_staff_id: str, account_id: str) -> dict:
    _acting_desk(ctx, acting_staff_id, DESK_EXPIRES)
    _account(ctx, account_id)
    stale = ctx.db.fetch_all(
        "SELECT order_id, account_id, instrument_id, side, quantity, reserved_cents, placed_at FROM orders "
        "WHERE account_id = ? AND status = 'open' AND time_in_force = 'day' AND substr(placed_at, 1, 10) < ? "
        "ORDER BY order_id", (account_id, ctx.today))
    for order in stale:
        _release(ctx, order)
        ctx.db.execute("UPDATE orders SET status = 'expired', closed_at = ?, reserved_cents = 0 WHERE order_id = ?",
                       (ctx.now, order["order_id"]))
    return {"account_id": account_id, "expired": [{"order_id": o["order_id"], "side": o["side"],
                                                   "placed_at": o["placed_at"]} for o in stale],
            "released_cents": sum(o["reserved_cents"] for o in stale)}


def list_executions(ctx, acting_investor_id: str, account_id: str, instrument_id: str | None = None,
                    date_from: str | None = None, date_to: str | None = None, limit: int = 20,
                    offset: int = 0) -> dict:
    _own_account(ctx, acting_investor_id, account_id, HOLDER_READS_EXECUTIONS)
    start, end = optional_date(date_from, "date_from"), optional_date(date_to, "date_to")
    rows = ctx.db.fetch_all(
        "SELECT e.execution_id, e.order_id, e.account_id, e.instrument_id, i.symbol, e.side, e.quantity, "
        "e.price_cents, e.commission_cents, e.executed_at FROM executions e "
        "JOIN instruments i ON i.instrument_id = e.instrument_id WHERE e.account_id = ? "
        "AND (? IS NULL OR e.instrument_id = ?) AND (? IS NULL OR substr(e.executed_at, 1, 10) >= ?) "
        "AND (? IS NULL OR substr(e.executed_at, 1, 10) <= ?) ORDER BY e.executed_at DESC, e.execution_id DESC",
        (account_id, instrument_id, instrument_id, start, start, end, end))
    return paginate(rows, limit, offset)


# -- watchlists and alerts -------------------------------------------------------------------------

def list_watchlists(ctx, acting_investor_id: str, investor_id: str) -> dict:
    _self(ctx, acting_investor_id, investor_id, OWN_WATCHLISTS)
    rows = ctx.db.fetch_all(
        "SELECT w.watchlist_id, w.investor_id, w.name, w.created_on, "
        "(SELECT count(*) FROM watchlist_items x WHERE x.watchlist_id = w.watchlist_id) AS item_count "
        "FROM watchlists w WHERE w.investor_id = ? ORDER BY w.watchlist_id", (investor_id,))
    return {"items": rows}


def get_watchlist(ctx, acting_investor_id: str, watchlist_id: str) -> dict:
    watchlist = _own_watchlist(ctx, acting_investor_id, watchlist_id, OWNER_READS_WATCHLIST)
    watchlist["items"] = ctx.db.fetch_all(
        "SELECT x.item_id, x.instrument_id, i.symbol, i.name, i.price_cents, i.price_cents - i.prev_close_cents "
        "AS change_cents, i.status, x.added_on FROM watchlist_items x "
        "JOIN instruments i ON i.instrument_id = x.instrument_id WHERE x.watchlist_id = ? ORDER BY i.symbol",
        (watchlist_id,))
    return watchlist


def create_watchlist(ctx, acting_investor_id: str, investor_id: str, name: str) -> dict:
    _self(ctx, acting_investor_id, investor_id, OWN_NEW_WATCHLIST)
    clean = name.strip()
    if not clean or len(clean) > MAX_NAME_LENGTH:
        raise InvalidArgumentError(f"name must be 1 to {MAX_NAME_LENGTH} characters")
    mine = ctx.db.fetch_all("SELECT watchlist_id, name FROM watchlists WHERE investor_id = ?", (investor_id,))
    for row in mine:
        if row["name"].lower() == clean.lower():
            raise ConflictError(f"watchlist {row['watchlist_id']} is already named {row['name']!r}")
    if len(mine) >= MAX_WATCHLISTS:
        raise ConflictError(f"investor already has {len(mine)} watchlists (limit {MAX_WATCHLISTS})")
    watchlist_id = ctx.new_id("WL")
    ctx.db.execute("INSERT INTO watchlists (watchlist_id, investor_id, name, created_on) VALUES (?, ?, ?, ?)",
                   (watchlist_id, investor_id, clean, ctx.today))
    return {"watchlist_id": watchlist_id, "investor_id": investor_id, "name": clean, "created_on": ctx.today}


def add_watchlist_item(ctx, acting_investor_id: str, watchlist_id: str, instrument_id: str) -> dict:
    _own_watchlist(ctx, acting_investor_id, watchlist_id, OWNER_CHANGES_WATCHLIST)
    instrument = _instrument(ctx, instrument_id)
    if instrument["status"] == "delisted":
        raise ConflictError(f"{instrument['symbol']} is delisted and cannot be watched")
    present = ctx.db.fetch_all("SELECT instrument_id FROM watchlist_items WHERE watchlist_id = ?", (watchlist_id,))
    if any(row["instrument_id"] == instrument_id for row in present):
        raise ConflictError(f"{instrument['symbol']} is already on watchlist {watchlist_id}")
    if len(present) >= MAX_WATCHLIST_ITEMS:
        raise ConflictError(f"watchlist {watchlist_id} is full ({MAX_WATCHLIST_ITEMS} instruments)")
    item_id = ctx.new_id("WLI")
    ctx.db.execute("INSERT INTO watchlist_items (item_id, watchlist_id, instrument_id, added_on) VALUES (?, ?, ?, ?)",
                   (item_id, watchlist_id, instrument_id, ctx.today))
    return {"item_id": item_id, "watchlist_id": watchlist_id, "instrument_id": instrument_id,
            "symbol": instrument["symbol"], "item_count": len(present) + 1}


def remove_watchlist_item(ctx, acting_investor_id: str, watchlist_id: str, instrument_id: str) -> dict:
    _own_watchlist(ctx, acting_investor_id, watchlist_id, OWNER_CHANGES_WATCHLIST)
    item = require_row(ctx, "SELECT item_id FROM watchlist_items WHERE watchlist_id = ? AND instrument_id = ?",
                       (watchlist_id, instrument_id), f"{instrument_id} is not on watchlist {watchlist_id}")
    ctx.db.execute("DELETE FROM watchlist_items WHERE item_id = ?", (item["item_id"],))
    return {"item_id": item["item_id"], "watchlist_id": watchlist_id, "instrument_id": instrument_id}


def list_alerts(ctx, acting_investor_id: str, investor_id: str, status: str | None = None,
                instrument_id: str | None = None) -> dict:
    _self(ctx, acting_investor_id, investor_id, OWN_ALERTS)
    optional_choice(status, ALERT_STATUSES, "status")
    rows = ctx.db.fetch_all(
        "SELECT a.alert_id, a.investor_id, a.instrument_id, i.symbol, a.direction, a.threshold_cents, "
        "i.price_cents, a.status, a.created_on, a.triggered_at FROM alerts a "
        "JOIN instruments i ON i.instrument_id = a.instrument_id WHERE a.investor_id = ? "
        "AND (? IS NULL OR a.status = ?) AND (? IS NULL OR a.instrument_id = ?) ORDER BY a.alert_id",
        (investor_id, status, status, instrument_id, instrument_id))
    return {"items": rows}


def create_alert(ctx, acting_investor_id: str, investor_id: str, instrument_id: str, direction: str,
                 threshold_cents: int) -> dict:
    _self(ctx, acting_investor_id, investor_id, OWN_NEW_ALERT)
    require_choice(direction, ALERT_DIRECTIONS, "direction")
    if threshold_cents < 1:
        raise InvalidArgumentError("threshold_cents must be a positive price in USD cents")
    instrument = _instrument(ctx, instrument_id)
    if instrument["status"] == "delisted":
        raise ConflictError(f"{instrument['symbol']} is delisted")
    price = instrument["price_cents"]
    if (direction == "above" and threshold_cents <= price) or (direction == "below" and threshold_cents >= price):
        raise ConflictError(f"the last price {price} is already {direction} or at {threshold_cents}: "
                            "the alert would trigger at once")
    active = ctx.db.fetch_all(
        "SELECT alert_id, instrument_id, direction, threshold_cents FROM alerts "
        "WHERE investor_id = ? AND status = 'active'", (investor_id,))
    for row in active:
        if (row["instrument_id"], row["direction"], row["threshold_cents"]) == (instrument_id, direction,
                                                                                 threshold_cents):
            raise ConflictError(f"alert {row['alert_id']} already watches this price")
    if len(active) >= MAX_ACTIVE_ALERTS:
        raise ConflictError(f"investor already has {len(active)} active alerts (limit {MAX_ACTIVE_ALERTS})")
    alert_id = ctx.new_id("ALR")
    ctx.db.execute(
        "INSERT INTO alerts (alert_id, investor_id, instrument_id, direction, threshold_cents, status, created_on, "
        "triggered_at) VALUES (?, ?, ?, ?, ?, 'active', ?, NULL)",
        (alert_id, investor_id, instrument_id, direction, threshold_cents, ctx.today))
    return {"alert_id": alert_id, "investor_id": investor_id, "instrument_id": instrument_id, "direction": direction,
            "threshold_cents": threshold_cents, "status": "active"}


def cancel_alert(ctx, acting_investor_id: str, alert_id: str) -> dict:
    _acting_investor(ctx, acting_investor_id)
    alert = require_row(ctx, "SELECT alert_id, investor_id, status FROM alerts WHERE alert_id = ?", (alert_id,),
                        f"no alert {alert_id}")
    require_permission(alert["investor_id"] == acting_investor_id, OWNER_CANCELS_ALERT)
    if alert["status"] != "active":
        raise ConflictError(f"alert {alert_id} is {alert['status']}: only active alerts can be cancelled")
    ctx.db.execute("UPDATE alerts SET status = 'cancelled' WHERE alert_id = ?", (alert_id,))
    return {"alert_id": alert_id, "investor_id": alert["investor_id"], "status": "cancelled"}


def check_alerts(ctx, acting_investor_id: str, investor_id: str) -> dict:
    _self(ctx, acting_investor_id, investor_id, OWN_ALERT_CHECK)
    active = ctx.db.fetch_all(
        "SELECT a.alert_id, a.instrument_id, i.symbol, a.direction, a.threshold_cents, i.price_cents FROM alerts a "
        "JOIN instruments i ON i.instrument_id = a.instrument_id WHERE a.investor_id = ? AND a.status = 'active' "
        "ORDER BY a.alert_id", (investor_id,))
    fired = [a for a in active if (a["direction"] == "above" and a["price_cents"] >= a["threshold_cents"])
             or (a["direction"] == "below" and a["price_cents"] <= a["threshold_cents"])]
    for alert in fired:
        ctx.db.execute("UPDATE alerts SET status = 'triggered', triggered_at = ? WHERE alert_id = ?",
                       (ctx.now, alert["alert_id"]))
    return {"investor_id": investor_id, "checked": len(active), "triggered": fired}


# -- corporate actions -----------------------------------------------------------------------------

def list_corporate_actions(ctx, instrument_id: str | None = None, action_type: str | None = None,
                           status: str | None = None, date_from: str | None = None, date_to: str | None = None,
                           limit: int = 20, offset: int = 0) -> dict:
    optional_choice(action_type, ACTION_TYPES, "action_type")
    optional_choice(status, ACTION_STATUSES, "status")
    start, end = optional_date(date_from, "date_from"), optional_date(date_to, "date_to")
    rows = ctx.db.fetch_all(
        "SELECT c.action_id, c.instrument_id, i.symbol, c.action_type, c.ex_date, c.pay_date, "
        "c.amount_per_share_cents, c.split_from, c.split_to, c.status, c.processed_at FROM corporate_actions c "
        "JOIN instruments i ON i.instrument_id = c.instrument_id WHERE (? IS NULL OR c.instrument_id = ?) "
        "AND (? IS NULL OR c.action_type = ?) AND (? IS NULL OR c.status = ?) AND (? IS NULL OR c.ex_date >= ?) "
        "AND (? IS NULL OR c.ex_date <= ?) ORDER BY c.ex_date, c.action_id",
        (instrument_id, instrument_id, action_type, action_type, status, status, start, start, end, end))
    return paginate(rows, limit, offset)


def _action(ctx, action_id: str, kind: str) -> dict:
    action = require_row(ctx, "SELECT action_id, instrument_id, action_type, ex_date, pay_date, amount_per_share_cents, "
                         "split_from, split_to, status FROM corporate_actions WHERE action_id = ?", (action_id,),
                         f"no corporate action {action_id}")
    if action["action_type"] != kind:
        raise InvalidArgumentError(f"{action_id} is a {action['action_type']}, not a {kind}")
    if action["status"] == "processed":
        raise ConflictError(f"{action_id} was already processed")
    return action


def process_dividend(ctx, acting_staff_id: str, action_id: str) -> dict:
    _acting_desk(ctx, acting_staff_id, DESK_DIVIDENDS)
    action = _action(ctx, action_id, "dividend")
    if action["pay_date"] > ctx.today:
        raise ConflictError(f"dividend {action_id} is payable on {action['pay_date']}, not before")
    instrument = _instrument(ctx, action["instrument_id"])
    holders = ctx.db.fetch_all(
        "SELECT p.account_id, p.quantity FROM positions p JOIN accounts a ON a.account_id = p.account_id "
        "WHERE p.instrument_id = ? AND a.status <> 'closed' ORDER BY p.account_id", (action["instrument_id"],))
    per_share = action["amount_per_share_cents"]
    payments = []
    for holder in holders:
        amount = holder["quantity"] * per_share
        ctx.db.execute("UPDATE accounts SET cash_cents = cash_cents + ? WHERE account_id = ?",
                       (amount, holder["account_id"]))
        movement_id = _ledger(ctx, holder["account_id"], "dividend", amount, action_id,
                              f"Dividend {instrument['symbol']} {per_share} cents x {holder['quantity']} shares")
        payments.append({"account_id": holder["account_id"], "quantity": holder["quantity"], "amount_cents": amount,
                         "movement_id": movement_id})
    ctx.db.execute("UPDATE corporate_actions SET status = 'processed', processed_at = ? WHERE action_id = ?",
                   (ctx.now, action_id))
    return {"action_id": action_id, "instrument_id": action["instrument_id"], "payments": payments,
            "total_paid_cents": sum(p["amount_cents"] for p in payments)}


def process_split(ctx, acting_staff_id: str, action_id: str) -> dict:
    _acting_desk(ctx, acting_staff_id, DESK_SPLITS)
    action = _action(ctx, action_id, "split")
    if action["ex_date"] > ctx.today:
        raise ConflictError(f"split {action_id} takes effect on {action['ex_date']}, not before")
    instrument = _instrument(ctx, action["instrument_id"])
    waiting = ctx.db.fetch_one("SELECT count(*) AS n FROM orders WHERE instrument_id = ? AND status = 'open'",
                               (action["instrument_id"],))["n"]
    if waiting > 0:
        raise ConflictError(f"{waiting} open orders on {instrument['symbol']} must be cancelled before the split")
    ratio_from, ratio_to = action["split_from"], action["split_to"]
    new_price = max(1, instrument["price_cents"] * ratio_from // ratio_to)
    ctx.db.execute("UPDATE instruments SET price_cents = ?, prev_close_cents = max(1, prev_close_cents * ? / ?) "
                   "WHERE instrument_id = ?", (new_price, ratio_from, ratio_to, action["instrument_id"]))
    holders = ctx.db.fetch_all(
        "SELECT position_id, account_id, quantity FROM positions WHERE instrument_id = ? ORDER BY account_id",
        (action["instrument_id"],))
    adjustments = []
    for holder in holders:
        scaled = holder["quantity"] * ratio_to
        shares = scaled // ratio_from
        cash = (scaled % ratio_from) * new_price // ratio_from
        if shares == 0:
            ctx.db.execute("DELETE FROM positions WHERE position_id = ?", (holder["position_id"],))
        else:
            ctx.db.execute("UPDATE positions SET quantity = ? WHERE position_id = ?", (shares, holder["position_id"]))
        if cash > 0:
            ctx.db.execute("UPDATE accounts SET cash_cents = cash_cents + ? WHERE account_id = ?",
                           (cash, holder["account_id"]))
            _ledger(ctx, holder["account_id"], "cash_in_lieu", cash, action_id,
                    f"Cash in lieu of fractional {instrument['symbol']} shares")
        adjustments.append({"account_id": holder["account_id"], "old_quantity": holder["quantity"],
                            "new_quantity": shares, "cash_in_lieu_cents": cash})
    ctx.db.execute("UPDATE corporate_actions SET status = 'processed', processed_at = ? WHERE action_id = ?",
                   (ctx.now, action_id))
    return {"action_id": action_id, "instrument_id": action["instrument_id"], "new_price_cents": new_price,
            "adjustments": adjustments}
