"""Tools of the express_logistics domain: quote, book, pay, pick up, move, clear, deliver and claim parcels.

Money is EUR cents, weights kg, dimensions cm, dates YYYY-MM-DD, timestamps YYYY-MM-DDTHH:MM:SS.
"""

from datetime import date, timedelta
from math import ceil

from scaleenv_mcp.toolkit import (
    ConflictError,
    InvalidArgumentError,
    NotFoundError,
    NotPermittedError,
    optional_date,
    paginate,
    require_date,
    require_permission,
    require_row,
)

EU_COUNTRIES = ("DE", "FR", "NL", "IT", "ES", "AT", "PL", "BE", "DK", "CZ", "PT", "IE")
VOLUMETRIC_DIVISOR = 5000
RESIDENTIAL_SURCHARGE_CENTS = 250
QUOTE_VALID_DAYS = 7
MAX_PARCELS = 10
MAX_WEIGHT_KG = 70.0
MAX_SIDE_CM = 175
PICKUP_HORIZON_DAYS = 14
PREMIUM_PER_MILLE = 15
MIN_PREMIUM_CENTS = 300
LIABILITY_CENTS = 10000
DE_MINIMIS_CENTS = 15000
DUTY_PERCENT = 8
DAMAGE_CLAIM_DAYS = 14
LOST_AFTER_DAYS = 5
MAX_DELIVERY_ATTEMPTS = 3
MOVING = ("picked_up", "in_transit")
REDIRECTABLE = ("awaiting_payment", "booked", "picked_up", "in_transit", "held_customs")

# Who may make each call: the same words as each tool's `permission` in domain.json.
MAY_VIEW_ACCOUNT = "a customer may view only their own account; staff may view any"
MAY_ADD_ADDRESS = "a customer may add addresses only to their own address book"
MAY_ARCHIVE_ADDRESS = "only the customer who owns the address may archive it"
MAY_QUOTE = "a customer may request quotes only for their own account"
MAY_LIST_QUOTES = "a customer may list only their own quotes"
MAY_BOOK = "only the customer who requested the quote may book a shipment from it"
MAY_SEARCH_SHIPMENTS = "a customer may search only the shipments they send or receive"
MAY_VIEW_SHIPMENT = "only the sender, the recipient or a member of staff may view a shipment's details"
MAY_ADD_PARCEL = "only the sender of the shipment may add parcels to it"
MAY_INSURE = "only the sender of the shipment may insure it"
MAY_PAY = "only the sender of the shipment may pay for it"
MAY_CANCEL = "only the sender of the shipment may cancel it"
MAY_REDIRECT = "only the recipient of the shipment may redirect it"
MAY_SCHEDULE_PICKUP = "only the sender of the shipment may schedule its pickup"
MAY_CANCEL_PICKUP = "only the sender of the shipment may cancel its pickup"
MAY_DECLARE = "only the sender of the shipment may declare its contents to customs"
MAY_SUBMIT_DECLARATION = "only the sender of the shipment may submit its customs declaration"
MAY_SEE_DECLARATIONS = "a customer may see only declarations of shipments they send or receive; staff may see all"
MAY_CLEAR = "only a customs officer may clear a customs declaration"
MAY_FILE_CLAIM = "only the sender of the shipment may file a claim on it"
MAY_SEE_CLAIMS = "a customer may see only their own claims; staff may see all"
MAY_VIEW_CLAIM = "only the claimant or a member of staff may view a claim"
MAY_APPROVE_CLAIM = "only a claims handler may approve a claim"
MAY_REJECT_CLAIM = "only a claims handler may reject a claim"
MAY_PAY_CLAIM = "only a claims handler may pay out a claim"
MAY_SET_COURIER_STATUS = "only a dispatcher of the courier's depot may change the courier's status"
MAY_ASSIGN_COURIER = "only a dispatcher of the pickup's origin depot may assign its courier"
MAY_COMPLETE_PICKUP = "only a dispatcher of the shipment's origin depot may complete its pickup"
MAY_SCAN = "only a dispatcher of the scanning depot may record a scan there"
MAY_DISPATCH = "only a dispatcher of the destination depot may dispatch a shipment for delivery"
MAY_CONFIRM_DELIVERY = "only a dispatcher of the destination depot may confirm a delivery"
MAY_RECORD_FAILED = "only a dispatcher of the destination depot may record a failed delivery"
MAY_REPORT_LOST = "only a dispatcher of the shipment's origin or destination depot may declare it lost"

SHIPMENT_COLUMNS = (
    "SELECT shipment_id, quote_id, sender_id, recipient_id, origin_address_id, destination_address_id, route_id, "
    "origin_depot_id, destination_depot_id, current_depot_id, service_level, status, customs_required, price_cents, "
    "insured_value_cents, insurance_premium_cents, paid_cents, payment_method, refunded_cents, delivery_attempts, "
    "delivery_courier_id, created_on, promised_by, delivered_on, reference FROM shipments WHERE shipment_id = ?"
)


# -- helpers (not tools) ------------------------------------------------------------------------

def _acting_customer(ctx, acting_customer_id: str) -> dict:
    return require_row(ctx, "SELECT customer_id, name, status FROM customers WHERE customer_id = ?",
                       (acting_customer_id,), f"acting_customer_id {acting_customer_id}: no such customer")


def _acting_staff(ctx, acting_staff_id: str) -> dict:
    return require_row(ctx, "SELECT staff_id, name, role, depot_id FROM staff WHERE staff_id = ?",
                       (acting_staff_id,), f"acting_staff_id {acting_staff_id}: no such staff member")


def _acting_user(ctx, acting_user_id: str) -> dict:
    """The customer or staff member named by acting_user_id: {"customer_id": ...} or {"staff_id": ...}."""
    customer = ctx.db.fetch_one("SELECT customer_id FROM customers WHERE customer_id = ?", (acting_user_id,))
    if customer is not None:
        return {"customer_id": customer["customer_id"], "staff_id": None}
    staff = ctx.db.fetch_one("SELECT staff_id FROM staff WHERE staff_id = ?", (acting_user_id,))
    if staff is not None:
        return {"customer_id": None, "staff_id": staff["staff_id"]}
    raise NotFoundError(f"acting_user_id {acting_user_id}: no such customer or staff member")


def _dispatcher_of(staff: dict, depot_id) -> bool:
    return staff["role"] == "dispatcher" and staff["depot_id"] == depot_id


def _shipment(ctx, shipment_id: str) -> dict:
    row = require_row(ctx, SHIPMENT_COLUMNS, (shipment_id,), f"no shipment {shipment_id}")
    row["customs_required"] = bool(row["customs_required"])
    return row


def _customer(ctx, customer_id: str) -> dict:
    return require_row(
        ctx,
        "SELECT customer_id, name, company, email, phone, account_type, status, credit_limit_cents, "
        "account_balance_cents, created_on FROM customers WHERE customer_id = ?",
        (customer_id,),
        f"no customer {customer_id}",
    )


def _address(ctx, address_id: str) -> dict:
    row = require_row(
        ctx,
        "SELECT address_id, customer_id, label, line1, city, postal_code, country, depot_id, is_residential, status "
        "FROM addresses WHERE address_id = ?",
        (address_id,),
        f"no address {address_id}",
    )
    row["is_residential"] = bool(row["is_residential"])
    return row


def _courier(ctx, courier_id: str) -> dict:
    return require_row(
        ctx,
        "SELECT courier_id, name, depot_id, vehicle_type, max_load_kg, phone, status FROM couriers "
        "WHERE courier_id = ?",
        (courier_id,),
        f"no courier {courier_id}",
    )


def _pickup(ctx, pickup_id: str) -> dict:
    return require_row(
        ctx,
        "SELECT pickup_id, shipment_id, address_id, courier_id, pickup_date, time_window, status, completed_at, note "
        "FROM pickups WHERE pickup_id = ?",
        (pickup_id,),
        f"no pickup {pickup_id}",
    )


def _claim(ctx, claim_id: str) -> dict:
    return require_row(
        ctx,
        "SELECT claim_id, shipment_id, customer_id, claim_type, amount_claimed_cents, amount_approved_cents, status, "
        "description, filed_on, resolved_on, resolution_note FROM claims WHERE claim_id = ?",
        (claim_id,),
        f"no claim {claim_id}",
    )


def _declaration(ctx, declaration_id: str) -> dict:
    return require_row(
        ctx,
        "SELECT declaration_id, shipment_id, contents_description, hs_code, declared_value_cents, incoterm, "
        "duty_cents, status, created_on, submitted_on, cleared_on FROM customs_declarations "
        "WHERE declaration_id = ?",
        (declaration_id,),
        f"no customs declaration {declaration_id}",
    )


def _chargeable(weight_kg: float, length_cm: int, width_cm: int, height_cm: int) -> int:
    return ceil(max(weight_kg, length_cm * width_cm * height_cm / VOLUMETRIC_DIVISOR))


def _check_parcel(weight_kg: float, length_cm: int, width_cm: int, height_cm: int) -> None:
    if weight_kg <= 0 or weight_kg > MAX_WEIGHT_KG:
        raise InvalidArgumentError(f"weight_kg must be above 0 and at most {MAX_WEIGHT_KG} kg")
    for side in (length_cm, width_cm, height_cm):
        if side < 1 or side > MAX_SIDE_CM:
            raise InvalidArgumentError(f"each side must be 1-{MAX_SIDE_CM} cm")


def _tariff_price(route: dict, chargeable_kg: int, residential: bool) -> int:
    surcharge = RESIDENTIAL_SURCHARGE_CENTS if residential else 0
    return route["base_cents"] + route["per_kg_cents"] * chargeable_kg + surcharge


def _event(ctx, shipment_id: str, event_type: str, depot_id, note) -> str:
    event_id = ctx.new_id("TRK")
    ctx.db.execute(
        "INSERT INTO tracking_events (event_id, shipment_id, event_type, depot_id, occurred_at, note) "
        "VALUES (?, ?, ?, ?, ?, ?)", (event_id, shipment_id, event_type, depot_id, ctx.now, note))
    return event_id


def _pickup_day(ctx, pickup_date: str) -> str:
    day = require_date(pickup_date, "pickup_date")
    today = date.fromisoformat(ctx.today)
    if day < today or day > today + timedelta(days=PICKUP_HORIZON_DAYS):
        raise InvalidArgumentError(f"pickup_date must be between today ({ctx.today}) and "
                                   f"{PICKUP_HORIZON_DAYS} days ahead")
    if day.weekday() == 6:
        raise InvalidArgumentError(f"{pickup_date} is a Sunday: there are no pickups on Sundays")
    return day.isoformat()


def _declarations(ctx, shipment_id: str) -> list:
    rows = ctx.db.fetch_all("SELECT status FROM customs_declarations WHERE shipment_id = ?", (shipment_id,))
    return [row["status"] for row in rows]


# -- identification ----------------------------------------------------------------------------

def _digits(phone: str) -> str:
    return "".join(ch for ch in phone if ch.isdigit())


def identify_customer(ctx, email: str | None = None, phone: str | None = None, name: str | None = None,
                      shipment_id: str | None = None) -> dict:
    if email is None and phone is None and name is None and shipment_id is None:
        raise InvalidArgumentError("give at least one of email, phone, name or shipment_id")
    rows = ctx.db.fetch_all(
        "SELECT customer_id, name, company, email, phone, account_type, status FROM customers c "
        "WHERE (? IS NULL OR lower(email) = lower(trim(?))) AND (? IS NULL OR lower(name) = lower(trim(?))) "
        "AND (? IS NULL OR EXISTS (SELECT 1 FROM shipments s WHERE s.shipment_id = upper(trim(?)) "
        "AND c.customer_id IN (s.sender_id, s.recipient_id))) ORDER BY customer_id",
        (email, email, name, name, shipment_id, shipment_id))
    if phone is not None:
        rows = [row for row in rows if _digits(row["phone"]) == _digits(phone)]
    if not rows:
        raise NotFoundError("no customer matches these details")
    if len(rows) > 1:
        if name is not None:
            raise InvalidArgumentError(f"{len(rows)} customers are named {rows[0]['name']}; ask for their email, "
                                       "phone or a tracking number of a shipment they sent or expect")
        raise InvalidArgumentError(f"{len(rows)} customers match (a shipment has a sender and a recipient); "
                                   "ask for the customer's full name too")
    return rows[0]


def identify_staff_member(ctx, email: str | None = None, phone: str | None = None, name: str | None = None) -> dict:
    if email is None and phone is None and name is None:
        raise InvalidArgumentError("give at least one of email, phone or name")
    rows = ctx.db.fetch_all(
        "SELECT s.staff_id, s.name, s.email, s.phone, s.role, s.depot_id, d.code AS depot_code FROM staff s "
        "JOIN depots d ON d.depot_id = s.depot_id WHERE (? IS NULL OR lower(s.email) = lower(trim(?))) "
        "AND (? IS NULL OR lower(s.name) = lower(trim(?))) ORDER BY s.staff_id",
        (email, email, name, name))
    if phone is not None:
        rows = [row for row in rows if _digits(row["phone"]) == _digits(phone)]
    if not rows:
        raise NotFoundError("no staff member matches these details")
    if len(rows) > 1:
        raise InvalidArgumentError(f"{len(rows)} staff members are named {rows[0]['name']}; ask for their work "
                                   "email or phone")
    return rows[0]


# -- customers and addresses ------------------------------------------------------------------

def find_customers(ctx, name: str | None = None, email: str | None = None, city: str | None = None,
                   account_type: str | None = None, status: str | None = None, limit: int = 20,
                   offset: int = 0) -> dict:
    rows = ctx.db.fetch_all(
        "SELECT c.customer_id, c.name, c.company, c.email, c.phone, c.account_type, c.status FROM customers c "
        "WHERE (? IS NULL OR c.name LIKE '%' || ? || '%' OR c.company LIKE '%' || ? || '%') "
        "AND (? IS NULL OR lower(c.email) = lower(?)) "
        "AND (? IS NULL OR c.account_type = ?) AND (? IS NULL OR c.status = ?) "
        "AND (? IS NULL OR EXISTS (SELECT 1 FROM addresses a WHERE a.customer_id = c.customer_id "
        "AND a.status = 'active' AND lower(a.city) = lower(?))) ORDER BY c.customer_id",
        (name, name, name, email, email, account_type, account_type, status, status, city, city))
    page = paginate(rows, limit, offset)
    for row in page["items"]:
        addresses = ctx.db.fetch_all(
            "SELECT address_id, label, city, postal_code, country, is_residential FROM addresses "
            "WHERE customer_id = ? AND status = 'active' ORDER BY address_id", (row["customer_id"],))
        for address in addresses:
            address["is_residential"] = bool(address["is_residential"])
        row["addresses"] = addresses
    return page


def get_customer(ctx, acting_user_id: str, customer_id: str) -> dict:
    actor = _acting_user(ctx, acting_user_id)
    customer = _customer(ctx, customer_id)
    require_permission(actor["staff_id"] is not None or actor["customer_id"] == customer_id, MAY_VIEW_ACCOUNT)
    addresses = ctx.db.fetch_all(
        "SELECT address_id, label, line1, city, postal_code, country, depot_id, is_residential, status "
        "FROM addresses WHERE customer_id = ? ORDER BY address_id", (customer_id,))
    for row in addresses:
        row["is_residential"] = bool(row["is_residential"])
    customer["available_credit_cents"] = customer["credit_limit_cents"] - customer["account_balance_cents"]
    customer["addresses"] = addresses
    return customer


def add_customer_address(ctx, acting_customer_id: str, customer_id: str, label: str, line1: str, city: str,
                         postal_code: str, country: str, is_residential: bool) -> dict:
    _acting_customer(ctx, acting_customer_id)
    customer = _customer(ctx, customer_id)
    require_permission(acting_customer_id == customer_id, MAY_ADD_ADDRESS)
    if customer["status"] != "active":
        raise NotPermittedError(f"customer {customer_id} is suspended")
    if not label.strip() or not line1.strip() or not postal_code.strip():
        raise InvalidArgumentError("label, line1 and postal_code must not be blank")
    depot = ctx.db.fetch_one(
        "SELECT depot_id FROM depots WHERE lower(city) = lower(?) AND country = ? AND status = 'open' "
        "ORDER BY depot_id LIMIT 1", (city.strip(), country.upper()))
    if depot is None:
        raise ConflictError(f"no open depot serves {city}, {country}")
    duplicate = ctx.db.fetch_one(
        "SELECT address_id FROM addresses WHERE customer_id = ? AND status = 'active' AND lower(line1) = lower(?) "
        "AND replace(postal_code, ' ', '') = replace(?, ' ', '')", (customer_id, line1.strip(), postal_code.strip()))
    if duplicate is not None:
        raise ConflictError(f"customer already has this active address: {duplicate['address_id']}")
    address_id = ctx.new_id("ADR")
    ctx.db.execute(
        "INSERT INTO addresses (address_id, customer_id, label, line1, city, postal_code, country, depot_id, "
        "is_residential, status) SELECT ?, ?, ?, ?, city, ?, country, depot_id, ?, 'active' FROM depots "
        "WHERE depot_id = ?",
        (address_id, customer_id, label.strip(), line1.strip(), postal_code.strip(), 1 if is_residential else 0,
         depot["depot_id"]))
    return _address(ctx, address_id)


def archive_address(ctx, acting_customer_id: str, address_id: str) -> dict:
    _acting_customer(ctx, acting_customer_id)
    address = _address(ctx, address_id)
    require_permission(address["customer_id"] == acting_customer_id, MAY_ARCHIVE_ADDRESS)
    if address["status"] == "archived":
        raise ConflictError(f"address {address_id} is already archived")
    in_use = ctx.db.fetch_one(
        "SELECT shipment_id FROM shipments WHERE (origin_address_id = ? OR destination_address_id = ?) "
        "AND status IN ('awaiting_payment', 'booked', 'picked_up', 'in_transit', 'held_customs', 'out_for_delivery', "
        "'return_to_sender') ORDER BY shipment_id LIMIT 1", (address_id, address_id))
    if in_use is not None:
        raise ConflictError(f"address {address_id} is used by active shipment {in_use['shipment_id']}")
    ctx.db.execute("UPDATE addresses SET status = 'archived' WHERE address_id = ?", (address_id,))
    return {"address_id": address_id, "customer_id": address["customer_id"], "status": "archived"}


# -- network --------------------------------------------------------------------------------

def find_depots(ctx, text: str | None = None, country: str | None = None, status: str | None = None) -> dict:
    rows = ctx.db.fetch_all(
        "SELECT depot_id, code, name, city, country, status, daily_capacity FROM depots "
        "WHERE (? IS NULL OR name LIKE '%' || ? || '%' OR city LIKE '%' || ? || '%' OR code = upper(?)) "
        "AND (? IS NULL OR country = upper(?)) AND (? IS NULL OR status = ?) ORDER BY depot_id",
        (text, text, text, text, country, country, status, status))
    return {"items": rows, "total": len(rows)}


def find_routes(ctx, origin_depot_id: str | None = None, destination_depot_id: str | None = None,
                service_level: str | None = None, status: str | None = None, limit: int = 20,
                offset: int = 0) -> dict:
    rows = ctx.db.fetch_all(
        "SELECT route_id, origin_depot_id, destination_depot_id, service_level, transit_days, base_cents, "
        "per_kg_cents, status FROM routes WHERE (? IS NULL OR origin_depot_id = ?) "
        "AND (? IS NULL OR destination_depot_id = ?) AND (? IS NULL OR service_level = ?) "
        "AND (? IS NULL OR status = ?) ORDER BY route_id",
        (origin_depot_id, origin_depot_id, destination_depot_id, destination_depot_id, service_level,
         service_level, status, status))
    return paginate(rows, limit, offset)


def find_couriers(ctx, depot_id: str | None = None, status: str | None = None, vehicle_type: str | None = None,
                  name: str | None = None) -> dict:
    rows = ctx.db.fetch_all(
        "SELECT courier_id, name, depot_id, vehicle_type, max_load_kg, phone, status FROM couriers "
        "WHERE (? IS NULL OR depot_id = ?) AND (? IS NULL OR status = ?) AND (? IS NULL OR vehicle_type = ?) "
        "AND (? IS NULL OR name LIKE '%' || ? || '%') ORDER BY courier_id",
        (depot_id, depot_id, status, status, vehicle_type, vehicle_type, name, name))
    return {"items": rows, "total": len(rows)}


def _courier_load(ctx, courier_id: str, pickup_date: str, exclude_pickup_id: str | None) -> float:
    row = ctx.db.fetch_one(
        "SELECT coalesce(sum(p.weight_kg), 0) AS kg FROM pickups k JOIN parcels p ON p.shipment_id = k.shipment_id "
        "WHERE k.courier_id = ? AND k.pickup_date = ? AND k.status = 'scheduled' AND (? IS NULL OR k.pickup_id <> ?)",
        (courier_id, pickup_date, exclude_pickup_id, exclude_pickup_id))
    return round(row["kg"], 1)


def get_courier_load(ctx, courier_id: str, pickup_date: str) -> dict:
    courier = _courier(ctx, courier_id)
    day = require_date(pickup_date, "pickup_date").isoformat()
    pickups = ctx.db.fetch_all(
        "SELECT k.pickup_id, k.shipment_id, k.time_window, "
        "(SELECT round(sum(weight_kg), 1) FROM parcels p WHERE p.shipment_id = k.shipment_id) AS weight_kg "
        "FROM pickups k WHERE k.courier_id = ? AND k.pickup_date = ? AND k.status = 'scheduled' "
        "ORDER BY k.pickup_id", (courier_id, day))
    load = _courier_load(ctx, courier_id, day, None)
    return {"courier_id": courier_id, "depot_id": courier["depot_id"], "status": courier["status"],
            "pickup_date": day, "max_load_kg": courier["max_load_kg"], "load_kg": load,
            "remaining_kg": round(courier["max_load_kg"] - load, 1), "pickups": pickups}


def set_courier_status(ctx, acting_staff_id: str, courier_id: str, status: str) -> dict:
    staff = _acting_staff(ctx, acting_staff_id)
    courier = _courier(ctx, courier_id)
    require_permission(_dispatcher_of(staff, courier["depot_id"]), MAY_SET_COURIER_STATUS)
    if courier["status"] == status:
        raise ConflictError(f"courier {courier_id} is already {status}")
    if status == "off_duty":
        pending = ctx.db.fetch_one(
            "SELECT count(*) AS n FROM pickups WHERE courier_id = ? AND status = 'scheduled' AND pickup_date >= ?",
            (courier_id, ctx.today))
        if pending["n"] > 0:
            raise ConflictError(f"courier {courier_id} still has {pending['n']} scheduled pickups from today on; "
                                "reassign or cancel them first")
        driving = ctx.db.fetch_one(
            "SELECT count(*) AS n FROM shipments WHERE delivery_courier_id = ? AND status = 'out_for_delivery'",
            (courier_id,))
        if driving["n"] > 0:
            raise ConflictError(f"courier {courier_id} is carrying {driving['n']} shipments out for delivery")
    ctx.db.execute("UPDATE couriers SET status = ? WHERE courier_id = ?", (status, courier_id))
    return {"courier_id": courier_id, "previous_status": courier["status"], "status": status}


# -- quotes and shipments ---------------------------------------------------------------------

def create_rate_quote(ctx, acting_customer_id: str, customer_id: str, origin_address_id: str,
                      destination_address_id: str, service_level: str, weight_kg: float, length_cm: int,
                      width_cm: int, height_cm: int) -> dict:
    _acting_customer(ctx, acting_customer_id)
    customer = _customer(ctx, customer_id)
    require_permission(acting_customer_id == customer_id, MAY_QUOTE)
    if customer["status"] != "active":
        raise NotPermittedError(f"customer {customer_id} is suspended")
    _check_parcel(weight_kg, length_cm, width_cm, height_cm)
    origin = _address(ctx, origin_address_id)
    destination = _address(ctx, destination_address_id)
    if origin["customer_id"] != customer_id:
        raise NotPermittedError(f"origin address {origin_address_id} belongs to another customer")
    if origin["status"] != "active" or destination["status"] != "active":
        raise ConflictError("origin and destination addresses must both be active")
    route = ctx.db.fetch_one(
        "SELECT route_id, transit_days, base_cents, per_kg_cents FROM routes WHERE origin_depot_id = ? "
        "AND destination_depot_id = ? AND service_level = ? AND status = 'active'",
        (origin["depot_id"], destination["depot_id"], service_level))
    if route is None:
        raise ConflictError(f"no active {service_level} route from depot {origin['depot_id']} to depot "
                            f"{destination['depot_id']}")
    chargeable = _chargeable(weight_kg, length_cm, width_cm, height_cm)
    price = _tariff_price(route, chargeable, destination["is_residential"])
    quote_id = ctx.new_id("QUO")
    valid_until = (date.fromisoformat(ctx.today) + timedelta(days=QUOTE_VALID_DAYS)).isoformat()
    ctx.db.execute(
        "INSERT INTO rate_quotes (quote_id, customer_id, origin_address_id, destination_address_id, route_id, "
        "service_level, weight_kg, length_cm, width_cm, height_cm, chargeable_weight_kg, price_cents, created_on, "
        "valid_until, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open')",
        (quote_id, customer_id, origin_address_id, destination_address_id, route["route_id"], service_level,
         weight_kg, length_cm, width_cm, height_cm, chargeable, price, ctx.today, valid_until))
    return {"quote_id": quote_id, "customer_id": customer_id, "route_id": route["route_id"],
            "service_level": service_level, "chargeable_weight_kg": chargeable, "price_cents": price,
            "transit_days": route["transit_days"], "valid_until": valid_until}


def find_rate_quotes(ctx, acting_customer_id: str, customer_id: str, status: str | None = None,
                     valid_only: bool = False) -> dict:
    _acting_customer(ctx, acting_customer_id)
    _customer(ctx, customer_id)
    require_permission(acting_customer_id == customer_id, MAY_LIST_QUOTES)
    rows = ctx.db.fetch_all(
        "SELECT quote_id, customer_id, origin_address_id, destination_address_id, route_id, service_level, "
        "weight_kg, length_cm, width_cm, height_cm, chargeable_weight_kg, price_cents, created_on, valid_until, "
        "status FROM rate_quotes WHERE customer_id = ? AND (? IS NULL OR status = ?) "
        "AND (? = 0 OR (status = 'open' AND valid_until >= ?)) ORDER BY quote_id",
        (customer_id, status, status, 1 if valid_only else 0, ctx.today))
    for row in rows:
        row["expired"] = row["valid_until"] < ctx.today
    return {"items": rows, "total": len(rows)}


def book_shipment(ctx, acting_customer_id: str, quote_id: str, recipient_id: str, contents: str,
                  declared_value_cents: int, reference: str | None = None) -> dict:
    _acting_customer(ctx, acting_customer_id)
    quote = require_row(
        ctx,
        "SELECT quote_id, customer_id, origin_address_id, destination_address_id, route_id, service_level, "
        "weight_kg, length_cm, width_cm, height_cm, price_cents, valid_until, status FROM rate_quotes "
        "WHERE quote_id = ?",
        (quote_id,),
        f"no rate quote {quote_id}",
    )
    require_permission(quote["customer_id"] == acting_customer_id, MAY_BOOK)
    if quote["status"] != "open":
        raise ConflictError(f"quote {quote_id} was already used for a shipment")
    if quote["valid_until"] < ctx.today:
        raise ConflictError(f"quote {quote_id} expired on {quote['valid_until']}; request a new quote")
    sender = _customer(ctx, quote["customer_id"])
    if sender["status"] != "active":
        raise NotPermittedError(f"sender {sender['customer_id']} is suspended")
    _customer(ctx, recipient_id)
    if declared_value_cents < 0 or not contents.strip():
        raise InvalidArgumentError("contents must not be blank and declared_value_cents must be >= 0")
    origin = _address(ctx, quote["origin_address_id"])
    destination = _address(ctx, quote["destination_address_id"])
    if destination["customer_id"] != recipient_id:
        raise InvalidArgumentError(f"the quote's destination address {destination['address_id']} does not belong "
                                   f"to recipient {recipient_id}")
    if origin["status"] != "active" or destination["status"] != "active":
        raise ConflictError("an address of the quote has been archived; request a new quote")
    route = ctx.db.fetch_one("SELECT route_id, transit_days, status FROM routes WHERE route_id = ?",
                             (quote["route_id"],))
    if route["status"] != "active":
        raise ConflictError(f"route {quote['route_id']} is suspended; request a quote for another service level")
    customs = origin["country"] != destination["country"] and not (
        origin["country"] in EU_COUNTRIES and destination["country"] in EU_COUNTRIES)
    shipment_id = ctx.new_id("SHP")
    promised_by = (date.fromisoformat(ctx.today) + timedelta(days=1 + route["transit_days"])).isoformat()
    ctx.db.execute(
        "INSERT INTO shipments (shipment_id, quote_id, sender_id, recipient_id, origin_address_id, "
        "destination_address_id, route_id, origin_depot_id, destination_depot_id, current_depot_id, service_level, "
        "status, customs_required, price_cents, insured_value_cents, insurance_premium_cents, paid_cents, "
        "payment_method, refunded_cents, delivery_attempts, delivery_courier_id, created_on, promised_by, "
        "delivered_on, reference) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, 'awaiting_payment', ?, ?, 0, 0, 0, "
        "NULL, 0, 0, NULL, ?, ?, NULL, ?)",
        (shipment_id, quote_id, quote["customer_id"], recipient_id, origin["address_id"], destination["address_id"],
         quote["route_id"], origin["depot_id"], destination["depot_id"], quote["service_level"], 1 if customs else 0,
         quote["price_cents"], ctx.today, promised_by, reference))
    parcel_id = ctx.new_id("PCL")
    ctx.db.execute(
        "INSERT INTO parcels (parcel_id, shipment_id, weight_kg, length_cm, width_cm, height_cm, contents, "
        "declared_value_cents) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (parcel_id, shipment_id, quote["weight_kg"], quote["length_cm"], quote["width_cm"], quote["height_cm"],
         contents.strip(), declared_value_cents))
    ctx.db.execute("UPDATE rate_quotes SET status = 'used' WHERE quote_id = ?", (quote_id,))
    _event(ctx, shipment_id, "created", None, None)
    return {"shipment_id": shipment_id, "parcel_id": parcel_id, "quote_id": quote_id, "status": "awaiting_payment",
            "price_cents": quote["price_cents"], "customs_required": customs, "promised_by": promised_by}


def find_shipments(ctx, acting_customer_id: str, customer_id: str | None = None, role: str = "any",
                   status: str | None = None, service_level: str | None = None, created_from: str | None = None,
                   created_to: str | None = None, reference: str | None = None, limit: int = 20,
                   offset: int = 0) -> dict:
    _acting_customer(ctx, acting_customer_id)
    require_permission(customer_id is None or customer_id == acting_customer_id, MAY_SEARCH_SHIPMENTS)
    customer_id = acting_customer_id
    created_from = optional_date(created_from, "created_from")
    created_to = optional_date(created_to, "created_to")
    if created_from is not None and created_to is not None and created_from > created_to:
        raise InvalidArgumentError("created_from is after created_to")
    rows = ctx.db.fetch_all(
        "SELECT shipment_id, sender_id, recipient_id, status, service_level, origin_depot_id, destination_depot_id, "
        "created_on, promised_by, delivered_on, price_cents, reference FROM shipments "
        "WHERE (? IS NULL OR (? <> 'recipient' AND sender_id = ?) OR (? <> 'sender' AND recipient_id = ?)) "
        "AND (? IS NULL OR status = ?) AND (? IS NULL OR service_level = ?) "
        "AND (? IS NULL OR created_on >= ?) AND (? IS NULL OR created_on <= ?) "
        "AND (? IS NULL OR reference LIKE '%' || ? || '%') ORDER BY created_on DESC, shipment_id DESC",
        (customer_id, role, customer_id, role, customer_id, status, status, service_level, service_level,
         created_from, created_from, created_to, created_to, reference, reference))
    return paginate(rows, limit, offset, 50)


def get_shipment(ctx, acting_user_id: str, shipment_id: str) -> dict:
    actor = _acting_user(ctx, acting_user_id)
    shipment = _shipment(ctx, shipment_id)
    require_permission(actor["staff_id"] is not None
                       or actor["customer_id"] in (shipment["sender_id"], shipment["recipient_id"]), MAY_VIEW_SHIPMENT)
    parcels = ctx.db.fetch_all(
        "SELECT parcel_id, weight_kg, length_cm, width_cm, height_cm, contents, declared_value_cents FROM parcels "
        "WHERE shipment_id = ? ORDER BY parcel_id", (shipment_id,))
    shipment["parcels"] = parcels
    shipment["total_weight_kg"] = round(sum(p["weight_kg"] for p in parcels), 1)
    shipment["chargeable_weight_kg"] = sum(
        _chargeable(p["weight_kg"], p["length_cm"], p["width_cm"], p["height_cm"]) for p in parcels)
    shipment["declared_value_cents"] = sum(p["declared_value_cents"] for p in parcels)
    due = shipment["price_cents"] + shipment["insurance_premium_cents"]
    shipment["amount_due_cents"] = due if shipment["status"] == "awaiting_payment" else 0
    return shipment


def get_tracking_history(ctx, shipment_id: str) -> dict:
    shipment = _shipment(ctx, shipment_id)
    events = ctx.db.fetch_all(
        "SELECT event_id, event_type, depot_id, occurred_at, note FROM tracking_events WHERE shipment_id = ? "
        "ORDER BY occurred_at, event_id", (shipment_id,))
    return {"shipment_id": shipment_id, "status": shipment["status"], "current_depot_id": shipment["current_depot_id"],
            "promised_by": shipment["promised_by"], "items": events}


def _reprice(ctx, shipment: dict) -> int:
    route = ctx.db.fetch_one("SELECT base_cents, per_kg_cents FROM routes WHERE route_id = ?", (shipment["route_id"],))
    destination = _address(ctx, shipment["destination_address_id"])
    parcels = ctx.db.fetch_all("SELECT weight_kg, length_cm, width_cm, height_cm FROM parcels WHERE shipment_id = ?",
                               (shipment["shipment_id"],))
    chargeable = sum(_chargeable(p["weight_kg"], p["length_cm"], p["width_cm"], p["height_cm"]) for p in parcels)
    return _tariff_price(route, chargeable, destination["is_residential"])


def add_parcel(ctx, acting_customer_id: str, shipment_id: str, weight_kg: float, length_cm: int, width_cm: int,
               height_cm: int, contents: str, declared_value_cents: int) -> dict:
    _acting_customer(ctx, acting_customer_id)
    shipment = _shipment(ctx, shipment_id)
    require_permission(shipment["sender_id"] == acting_customer_id, MAY_ADD_PARCEL)
    if shipment["status"] != "awaiting_payment":
        raise ConflictError(f"shipment {shipment_id} is {shipment['status']}: parcels can only be added before payment")
    _check_parcel(weight_kg, length_cm, width_cm, height_cm)
    if declared_value_cents < 0 or not contents.strip():
        raise InvalidArgumentError("contents must not be blank and declared_value_cents must be >= 0")
    count = ctx.db.fetch_one("SELECT count(*) AS n FROM parcels WHERE shipment_id = ?", (shipment_id,))["n"]
    if count >= MAX_PARCELS:
        raise ConflictError(f"shipment {shipment_id} already has the maximum of {MAX_PARCELS} parcels")
    if any(status != "rejected" for status in _declarations(ctx, shipment_id)):
        raise ConflictError(f"shipment {shipment_id} already has a customs declaration covering its parcels")
    parcel_id = ctx.new_id("PCL")
    ctx.db.execute(
        "INSERT INTO parcels (parcel_id, shipment_id, weight_kg, length_cm, width_cm, height_cm, contents, "
        "declared_value_cents) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (parcel_id, shipment_id, weight_kg, length_cm, width_cm, height_cm, contents.strip(), declared_value_cents))
    price = _reprice(ctx, shipment)
    ctx.db.execute("UPDATE shipments SET price_cents = ? WHERE shipment_id = ?", (price, shipment_id))
    return {"shipment_id": shipment_id, "parcel_id": parcel_id, "parcel_count": count + 1,
            "previous_price_cents": shipment["price_cents"], "price_cents": price}


def purchase_insurance(ctx, acting_customer_id: str, shipment_id: str, insured_value_cents: int) -> dict:
    _acting_customer(ctx, acting_customer_id)
    shipment = _shipment(ctx, shipment_id)
    require_permission(shipment["sender_id"] == acting_customer_id, MAY_INSURE)
    if shipment["status"] != "awaiting_payment":
        raise ConflictError(f"shipment {shipment_id} is {shipment['status']}: insurance can only be bought before "
                            "payment")
    declared = ctx.db.fetch_one("SELECT coalesce(sum(declared_value_cents), 0) AS v FROM parcels WHERE shipment_id = ?",
                                (shipment_id,))["v"]
    if insured_value_cents < 1 or insured_value_cents > declared:
        raise InvalidArgumentError(f"insured_value_cents must be between 1 and the parcels' declared value "
                                   f"({declared} cents)")
    premium = max(MIN_PREMIUM_CENTS, ceil(insured_value_cents * PREMIUM_PER_MILLE / 1000))
    ctx.db.execute("UPDATE shipments SET insured_value_cents = ?, insurance_premium_cents = ? WHERE shipment_id = ?",
                   (insured_value_cents, premium, shipment_id))
    return {"shipment_id": shipment_id, "insured_value_cents": insured_value_cents, "premium_cents": premium,
            "amount_due_cents": shipment["price_cents"] + premium}


def pay_shipment(ctx, acting_customer_id: str, shipment_id: str, payment_method: str) -> dict:
    _acting_customer(ctx, acting_customer_id)
    shipment = _shipment(ctx, shipment_id)
    require_permission(shipment["sender_id"] == acting_customer_id, MAY_PAY)
    if shipment["status"] != "awaiting_payment":
        raise ConflictError(f"shipment {shipment_id} is {shipment['status']}, not awaiting payment")
    sender = _customer(ctx, shipment["sender_id"])
    if sender["status"] != "active":
        raise NotPermittedError(f"sender {sender['customer_id']} is suspended")
    amount = shipment["price_cents"] + shipment["insurance_premium_cents"]
    if payment_method == "account":
        if sender["account_type"] != "business":
            raise NotPermittedError("only business customers can pay on account; pay by card")
        if sender["account_balance_cents"] + amount > sender["credit_limit_cents"]:
            raise ConflictError(f"paying {amount} cents on account would exceed the credit limit: "
                                f"{sender['credit_limit_cents'] - sender['account_balance_cents']} cents available")
        ctx.db.execute("UPDATE customers SET account_balance_cents = account_balance_cents + ? WHERE customer_id = ?",
                       (amount, sender["customer_id"]))
    ctx.db.execute("UPDATE shipments SET paid_cents = ?, payment_method = ?, status = 'booked' WHERE shipment_id = ?",
                   (amount, payment_method, shipment_id))
    _event(ctx, shipment_id, "booked", None, f"Paid {amount} cents by {payment_method}")
    return {"shipment_id": shipment_id, "status": "booked", "paid_cents": amount, "payment_method": payment_method}


def cancel_shipment(ctx, acting_customer_id: str, shipment_id: str, reason: str) -> dict:
    _acting_customer(ctx, acting_customer_id)
    shipment = _shipment(ctx, shipment_id)
    require_permission(shipment["sender_id"] == acting_customer_id, MAY_CANCEL)
    if shipment["status"] == "cancelled":
        raise ConflictError(f"shipment {shipment_id} is already cancelled")
    if shipment["status"] not in ("awaiting_payment", "booked"):
        raise ConflictError(f"shipment {shipment_id} is {shipment['status']}: only shipments not yet picked up can "
                            "be cancelled")
    refund = shipment["paid_cents"] - shipment["refunded_cents"]
    if shipment["payment_method"] == "account" and refund > 0:
        ctx.db.execute(
            "UPDATE customers SET account_balance_cents = max(0, account_balance_cents - ?) WHERE customer_id = ?",
            (refund, shipment["sender_id"]))
    ctx.db.execute("UPDATE shipments SET status = 'cancelled', refunded_cents = paid_cents WHERE shipment_id = ?",
                   (shipment_id,))
    cancelled = ctx.db.execute(
        "UPDATE pickups SET status = 'cancelled', note = 'Cancelled together with the shipment' "
        "WHERE shipment_id = ? AND status = 'scheduled'", (shipment_id,))
    _event(ctx, shipment_id, "cancelled", None, reason)
    return {"shipment_id": shipment_id, "status": "cancelled", "refunded_cents": refund,
            "pickups_cancelled": cancelled}


def redirect_shipment(ctx, acting_customer_id: str, shipment_id: str, address_id: str) -> dict:
    _acting_customer(ctx, acting_customer_id)
    shipment = _shipment(ctx, shipment_id)
    require_permission(shipment["recipient_id"] == acting_customer_id, MAY_REDIRECT)
    if shipment["status"] not in REDIRECTABLE:
        raise ConflictError(f"shipment {shipment_id} is {shipment['status']} and can no longer be redirected")
    address = _address(ctx, address_id)
    if address_id == shipment["destination_address_id"]:
        raise InvalidArgumentError(f"shipment {shipment_id} is already going to {address_id}")
    if address["customer_id"] != shipment["recipient_id"]:
        raise NotPermittedError(f"address {address_id} does not belong to recipient {shipment['recipient_id']}")
    if address["status"] != "active":
        raise ConflictError(f"address {address_id} is archived")
    if address["depot_id"] != shipment["destination_depot_id"]:
        raise ConflictError(f"address {address_id} is served by depot {address['depot_id']}, not by the shipment's "
                            f"destination depot {shipment['destination_depot_id']}")
    ctx.db.execute("UPDATE shipments SET destination_address_id = ? WHERE shipment_id = ?", (address_id, shipment_id))
    _event(ctx, shipment_id, "redirected", None,
           f"Redirected from {shipment['destination_address_id']} to {address_id}")
    return {"shipment_id": shipment_id, "previous_address_id": shipment["destination_address_id"],
            "destination_address_id": address_id}


# -- pickups ----------------------------------------------------------------------------------

def schedule_pickup(ctx, acting_customer_id: str, shipment_id: str, pickup_date: str, time_window: str) -> dict:
    _acting_customer(ctx, acting_customer_id)
    shipment = _shipment(ctx, shipment_id)
    require_permission(shipment["sender_id"] == acting_customer_id, MAY_SCHEDULE_PICKUP)
    if shipment["status"] != "booked":
        raise ConflictError(f"shipment {shipment_id} is {shipment['status']}: only booked (paid) shipments can be "
                            "picked up")
    day = _pickup_day(ctx, pickup_date)
    existing = ctx.db.fetch_one("SELECT pickup_id FROM pickups WHERE shipment_id = ? AND status = 'scheduled'",
                                (shipment_id,))
    if existing is not None:
        raise ConflictError(f"shipment {shipment_id} already has scheduled pickup {existing['pickup_id']}")
    ready = [status for status in _declarations(ctx, shipment_id) if status in ("submitted", "cleared")]
    if shipment["customs_required"] and not ready:
        raise NotPermittedError(f"shipment {shipment_id} crosses a customs border: submit its customs declaration "
                                "before scheduling the pickup")
    pickup_id = ctx.new_id("PCK")
    ctx.db.execute(
        "INSERT INTO pickups (pickup_id, shipment_id, address_id, courier_id, pickup_date, time_window, status, "
        "completed_at, note) VALUES (?, ?, ?, NULL, ?, ?, 'scheduled', NULL, NULL)",
        (pickup_id, shipment_id, shipment["origin_address_id"], day, time_window))
    return {"pickup_id": pickup_id, "shipment_id": shipment_id, "address_id": shipment["origin_address_id"],
            "depot_id": shipment["origin_depot_id"], "pickup_date": day, "time_window": time_window,
            "status": "scheduled"}


def find_pickups(ctx, shipment_id: str | None = None, courier_id: str | None = None, depot_id: str | None = None,
                 pickup_date: str | None = None, status: str | None = None, limit: int = 20, offset: int = 0) -> dict:
    pickup_date = optional_date(pickup_date, "pickup_date")
    rows = ctx.db.fetch_all(
        "SELECT k.pickup_id, k.shipment_id, k.address_id, k.courier_id, s.origin_depot_id AS depot_id, "
        "k.pickup_date, k.time_window, k.status, k.completed_at, k.note FROM pickups k "
        "JOIN shipments s ON s.shipment_id = k.shipment_id WHERE (? IS NULL OR k.shipment_id = ?) "
        "AND (? IS NULL OR k.courier_id = ?) AND (? IS NULL OR s.origin_depot_id = ?) "
        "AND (? IS NULL OR k.pickup_date = ?) AND (? IS NULL OR k.status = ?) "
        "ORDER BY k.pickup_date DESC, k.pickup_id",
        (shipment_id, shipment_id, courier_id, courier_id, depot_id, depot_id, pickup_date, pickup_date, status,
         status))
    return paginate(rows, limit, offset)


def assign_courier(ctx, acting_staff_id: str, pickup_id: str, courier_id: str) -> dict:
    staff = _acting_staff(ctx, acting_staff_id)
    pickup = _pickup(ctx, pickup_id)
    origin = ctx.db.fetch_one("SELECT origin_depot_id FROM shipments WHERE shipment_id = ?", (pickup["shipment_id"],))
    require_permission(_dispatcher_of(staff, origin["origin_depot_id"]), MAY_ASSIGN_COURIER)
    if pickup["status"] != "scheduled":
        raise ConflictError(f"pickup {pickup_id} is {pickup['status']}, not scheduled")
    courier = _courier(ctx, courier_id)
    shipment = _shipment(ctx, pickup["shipment_id"])
    if courier["depot_id"] != shipment["origin_depot_id"]:
        raise NotPermittedError(f"courier {courier_id} is based at depot {courier['depot_id']}; the pickup is served "
                                f"by depot {shipment['origin_depot_id']}")
    if courier["status"] == "off_duty":
        raise ConflictError(f"courier {courier_id} is off duty")
    weight = ctx.db.fetch_one("SELECT sum(weight_kg) AS kg FROM parcels WHERE shipment_id = ?",
                              (shipment["shipment_id"],))["kg"]
    load = _courier_load(ctx, courier_id, pickup["pickup_date"], pickup_id)
    if load + weight > courier["max_load_kg"]:
        raise ConflictError(f"courier {courier_id} already carries {load} kg on {pickup['pickup_date']}; adding "
                            f"{round(weight, 1)} kg exceeds the {courier['max_load_kg']} kg limit")
    ctx.db.execute("UPDATE pickups SET courier_id = ? WHERE pickup_id = ?", (courier_id, pickup_id))
    return {"pickup_id": pickup_id, "courier_id": courier_id, "shipment_id": shipment["shipment_id"],
            "pickup_date": pickup["pickup_date"], "load_kg": round(load + weight, 1)}


def cancel_pickup(ctx, acting_customer_id: str, pickup_id: str, reason: str) -> dict:
    _acting_customer(ctx, acting_customer_id)
    pickup = _pickup(ctx, pickup_id)
    sender = ctx.db.fetch_one("SELECT sender_id FROM shipments WHERE shipment_id = ?", (pickup["shipment_id"],))
    require_permission(sender["sender_id"] == acting_customer_id, MAY_CANCEL_PICKUP)
    if pickup["status"] != "scheduled":
        raise ConflictError(f"pickup {pickup_id} is {pickup['status']}, not scheduled")
    ctx.db.execute("UPDATE pickups SET status = 'cancelled', note = ? WHERE pickup_id = ?", (reason, pickup_id))
    return {"pickup_id": pickup_id, "shipment_id": pickup["shipment_id"], "status": "cancelled"}


def complete_pickup(ctx, acting_staff_id: str, pickup_id: str) -> dict:
    staff = _acting_staff(ctx, acting_staff_id)
    pickup = _pickup(ctx, pickup_id)
    origin = ctx.db.fetch_one("SELECT origin_depot_id FROM shipments WHERE shipment_id = ?", (pickup["shipment_id"],))
    require_permission(_dispatcher_of(staff, origin["origin_depot_id"]), MAY_COMPLETE_PICKUP)
    if pickup["status"] != "scheduled":
        raise ConflictError(f"pickup {pickup_id} is {pickup['status']}, not scheduled")
    if pickup["courier_id"] is None:
        raise ConflictError(f"pickup {pickup_id} has no courier assigned; use assign_courier first")
    if pickup["pickup_date"] > ctx.today:
        raise ConflictError(f"pickup {pickup_id} is planned for {pickup['pickup_date']}, after today")
    shipment = _shipment(ctx, pickup["shipment_id"])
    if shipment["status"] != "booked":
        raise ConflictError(f"shipment {shipment['shipment_id']} is {shipment['status']}, not booked")
    ctx.db.execute("UPDATE pickups SET status = 'completed', completed_at = ? WHERE pickup_id = ?", (ctx.now, pickup_id))
    ctx.db.execute("UPDATE shipments SET status = 'picked_up' WHERE shipment_id = ?", (shipment["shipment_id"],))
    event_id = _event(ctx, shipment["shipment_id"], "picked_up", None, f"Collected by courier {pickup['courier_id']}")
    return {"pickup_id": pickup_id, "shipment_id": shipment["shipment_id"], "status": "completed",
            "shipment_status": "picked_up", "event_id": event_id}


# -- movement and delivery --------------------------------------------------------------------

def record_depot_scan(ctx, acting_staff_id: str, shipment_id: str, depot_id: str, scan_type: str) -> dict:
    staff = _acting_staff(ctx, acting_staff_id)
    shipment = _shipment(ctx, shipment_id)
    depot = require_row(
        ctx, "SELECT depot_id, status FROM depots WHERE depot_id = ?", (depot_id,), f"no depot {depot_id}"
    )
    require_permission(_dispatcher_of(staff, depot_id), MAY_SCAN)
    if depot["status"] != "open":
        raise NotPermittedError(f"depot {depot_id} is closed")
    if shipment["status"] not in MOVING:
        raise ConflictError(f"shipment {shipment_id} is {shipment['status']}: only picked-up or in-transit shipments "
                            "are scanned")
    status = "in_transit"
    if scan_type == "arrived":
        if shipment["current_depot_id"] is not None:
            raise ConflictError(f"shipment {shipment_id} is still at depot {shipment['current_depot_id']}; scan its "
                                "departure first")
        event_id = _event(ctx, shipment_id, "arrived_depot", depot_id, None)
        if (depot_id == shipment["destination_depot_id"] and shipment["customs_required"]
                and "cleared" not in _declarations(ctx, shipment_id)):
            status = "held_customs"
            _event(ctx, shipment_id, "held_customs", depot_id, "Awaiting customs clearance")
        ctx.db.execute("UPDATE shipments SET current_depot_id = ?, status = ? WHERE shipment_id = ?",
                       (depot_id, status, shipment_id))
        current = depot_id
    else:
        if shipment["current_depot_id"] != depot_id:
            raise ConflictError(f"shipment {shipment_id} is not at depot {depot_id}")
        if depot_id == shipment["destination_depot_id"]:
            raise ConflictError(f"depot {depot_id} is the destination depot: dispatch the shipment for delivery "
                                "instead")
        event_id = _event(ctx, shipment_id, "departed_depot", depot_id, None)
        ctx.db.execute("UPDATE shipments SET current_depot_id = NULL, status = 'in_transit' WHERE shipment_id = ?",
                       (shipment_id,))
        current = None
    return {"shipment_id": shipment_id, "event_id": event_id, "status": status, "current_depot_id": current}


def dispatch_for_delivery(ctx, acting_staff_id: str, shipment_id: str, courier_id: str) -> dict:
    staff = _acting_staff(ctx, acting_staff_id)
    shipment = _shipment(ctx, shipment_id)
    require_permission(_dispatcher_of(staff, shipment["destination_depot_id"]), MAY_DISPATCH)
    if shipment["status"] == "held_customs":
        raise NotPermittedError(f"shipment {shipment_id} is held in customs until its declaration is cleared")
    if shipment["status"] != "in_transit":
        raise ConflictError(f"shipment {shipment_id} is {shipment['status']}, not in transit")
    if shipment["current_depot_id"] != shipment["destination_depot_id"]:
        raise ConflictError(f"shipment {shipment_id} has not arrived at its destination depot "
                            f"{shipment['destination_depot_id']}")
    courier = _courier(ctx, courier_id)
    if courier["depot_id"] != shipment["destination_depot_id"]:
        raise NotPermittedError(f"courier {courier_id} is based at depot {courier['depot_id']}, not at "
                                f"{shipment['destination_depot_id']}")
    if courier["status"] == "off_duty":
        raise ConflictError(f"courier {courier_id} is off duty")
    ctx.db.execute("UPDATE shipments SET status = 'out_for_delivery', delivery_courier_id = ? WHERE shipment_id = ?",
                   (courier_id, shipment_id))
    event_id = _event(ctx, shipment_id, "out_for_delivery", shipment["destination_depot_id"], f"Courier {courier_id}")
    return {"shipment_id": shipment_id, "courier_id": courier_id, "status": "out_for_delivery",
            "attempt": shipment["delivery_attempts"] + 1, "event_id": event_id}


def confirm_delivery(ctx, acting_staff_id: str, shipment_id: str, received_by: str) -> dict:
    staff = _acting_staff(ctx, acting_staff_id)
    shipment = _shipment(ctx, shipment_id)
    require_permission(_dispatcher_of(staff, shipment["destination_depot_id"]), MAY_CONFIRM_DELIVERY)
    if shipment["status"] != "out_for_delivery":
        raise ConflictError(f"shipment {shipment_id} is {shipment['status']}, not out for delivery")
    if not received_by.strip():
        raise InvalidArgumentError("received_by must name who took the parcel")
    ctx.db.execute("UPDATE shipments SET status = 'delivered', delivered_on = ?, current_depot_id = NULL "
                   "WHERE shipment_id = ?", (ctx.today, shipment_id))
    event_id = _event(ctx, shipment_id, "delivered", shipment["destination_depot_id"],
                      f"Received by {received_by.strip()}")
    return {"shipment_id": shipment_id, "status": "delivered", "delivered_on": ctx.today,
            "on_time": ctx.today <= shipment["promised_by"], "event_id": event_id}


def record_failed_delivery(ctx, acting_staff_id: str, shipment_id: str, reason: str) -> dict:
    staff = _acting_staff(ctx, acting_staff_id)
    shipment = _shipment(ctx, shipment_id)
    require_permission(_dispatcher_of(staff, shipment["destination_depot_id"]), MAY_RECORD_FAILED)
    if shipment["status"] != "out_for_delivery":
        raise ConflictError(f"shipment {shipment_id} is {shipment['status']}, not out for delivery")
    attempts = shipment["delivery_attempts"] + 1
    status = "return_to_sender" if attempts >= MAX_DELIVERY_ATTEMPTS else "in_transit"
    ctx.db.execute("UPDATE shipments SET delivery_attempts = ?, status = ?, delivery_courier_id = NULL "
                   "WHERE shipment_id = ?", (attempts, status, shipment_id))
    event_id = _event(ctx, shipment_id, "delivery_failed", shipment["destination_depot_id"], reason)
    if status == "return_to_sender":
        _event(ctx, shipment_id, "returning_to_sender", shipment["destination_depot_id"],
               f"Delivery failed {attempts} times")
    return {"shipment_id": shipment_id, "delivery_attempts": attempts, "status": status, "event_id": event_id}


def report_shipment_lost(ctx, acting_staff_id: str, shipment_id: str) -> dict:
    staff = _acting_staff(ctx, acting_staff_id)
    shipment = _shipment(ctx, shipment_id)
    require_permission(_dispatcher_of(staff, shipment["origin_depot_id"])
                       or _dispatcher_of(staff, shipment["destination_depot_id"]), MAY_REPORT_LOST)
    if shipment["status"] not in MOVING:
        raise ConflictError(f"shipment {shipment_id} is {shipment['status']}: only picked-up or in-transit "
                            "shipments can be reported lost")
    last = ctx.db.fetch_one("SELECT max(occurred_at) AS at FROM tracking_events WHERE shipment_id = ?",
                            (shipment_id,))["at"]
    cutoff = (date.fromisoformat(ctx.today) - timedelta(days=LOST_AFTER_DAYS)).isoformat()
    if last is not None and last[:10] > cutoff:
        raise ConflictError(f"shipment {shipment_id} was last scanned at {last}: wait until {LOST_AFTER_DAYS} days "
                            "have passed without a scan")
    ctx.db.execute("UPDATE shipments SET status = 'lost', current_depot_id = NULL WHERE shipment_id = ?",
                   (shipment_id,))
    event_id = _event(ctx, shipment_id, "lost", None, f"No scan since {last}")
    return {"shipment_id": shipment_id, "status": "lost", "last_scan_at": last, "event_id": event_id}


# -- customs ----------------------------------------------------------------------------------

def find_customs_declarations(ctx, acting_user_id: str, shipment_id: str | None = None, status: str | None = None,
                              limit: int = 20, offset: int = 0) -> dict:
    customer_id = _acting_user(ctx, acting_user_id)["customer_id"]
    if shipment_id is not None and customer_id is not None:
        shipment = _shipment(ctx, shipment_id)
        require_permission(customer_id in (shipment["sender_id"], shipment["recipient_id"]), MAY_SEE_DECLARATIONS)
    rows = ctx.db.fetch_all(
        "SELECT declaration_id, shipment_id, contents_description, hs_code, declared_value_cents, incoterm, "
        "duty_cents, status, created_on, submitted_on, cleared_on FROM customs_declarations "
        "WHERE (? IS NULL OR shipment_id = ?) AND (? IS NULL OR status = ?) AND (? IS NULL OR shipment_id IN "
        "(SELECT shipment_id FROM shipments WHERE ? IN (sender_id, recipient_id))) ORDER BY declaration_id",
        (shipment_id, shipment_id, status, status, customer_id, customer_id))
    return paginate(rows, limit, offset)


def create_customs_declaration(ctx, acting_customer_id: str, shipment_id: str, contents_description: str,
                               hs_code: str, declared_value_cents: int, incoterm: str) -> dict:
    _acting_customer(ctx, acting_customer_id)
    shipment = _shipment(ctx, shipment_id)
    require_permission(shipment["sender_id"] == acting_customer_id, MAY_DECLARE)
    if not shipment["customs_required"]:
        raise NotPermittedError(f"shipment {shipment_id} does not cross a customs border")
    if shipment["status"] in ("cancelled", "delivered", "lost", "return_to_sender"):
        raise ConflictError(f"shipment {shipment_id} is {shipment['status']}")
    if len(hs_code) != 6 or not hs_code.isdigit():
        raise InvalidArgumentError("hs_code must be 6 digits")
    if not contents_description.strip():
        raise InvalidArgumentError("contents_description must not be blank")
    existing = ctx.db.fetch_one(
        "SELECT declaration_id FROM customs_declarations WHERE shipment_id = ? AND status <> 'rejected'",
        (shipment_id,))
    if existing is not None:
        raise ConflictError(f"shipment {shipment_id} already has declaration {existing['declaration_id']}")
    declared = ctx.db.fetch_one("SELECT coalesce(sum(declared_value_cents), 0) AS v FROM parcels WHERE shipment_id = ?",
                                (shipment_id,))["v"]
    if declared_value_cents != declared:
        raise InvalidArgumentError(f"declared_value_cents must equal the parcels' declared value ({declared} cents)")
    duty = declared_value_cents * DUTY_PERCENT // 100 if declared_value_cents > DE_MINIMIS_CENTS else 0
    declaration_id = ctx.new_id("CDC")
    ctx.db.execute(
        "INSERT INTO customs_declarations (declaration_id, shipment_id, contents_description, hs_code, "
        "declared_value_cents, incoterm, duty_cents, status, created_on, submitted_on, cleared_on) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, 'draft', ?, NULL, NULL)",
        (declaration_id, shipment_id, contents_description.strip(), hs_code, declared_value_cents, incoterm, duty,
         ctx.today))
    return {"declaration_id": declaration_id, "shipment_id": shipment_id, "status": "draft", "duty_cents": duty}


def submit_customs_declaration(ctx, acting_customer_id: str, declaration_id: str) -> dict:
    _acting_customer(ctx, acting_customer_id)
    declaration = _declaration(ctx, declaration_id)
    shipment = _shipment(ctx, declaration["shipment_id"])
    require_permission(shipment["sender_id"] == acting_customer_id, MAY_SUBMIT_DECLARATION)
    if declaration["status"] != "draft":
        raise ConflictError(f"declaration {declaration_id} is {declaration['status']}, not a draft")
    if shipment["status"] == "cancelled":
        raise ConflictError(f"shipment {shipment['shipment_id']} is cancelled")
    ctx.db.execute("UPDATE customs_declarations SET status = 'submitted', submitted_on = ? WHERE declaration_id = ?",
                   (ctx.today, declaration_id))
    return {"declaration_id": declaration_id, "shipment_id": shipment["shipment_id"], "status": "submitted",
            "submitted_on": ctx.today}


def clear_customs_declaration(ctx, acting_staff_id: str, declaration_id: str) -> dict:
    staff = _acting_staff(ctx, acting_staff_id)
    declaration = _declaration(ctx, declaration_id)
    require_permission(staff["role"] == "customs_officer", MAY_CLEAR)
    if declaration["status"] != "submitted":
        raise ConflictError(f"declaration {declaration_id} is {declaration['status']}, not submitted")
    shipment = _shipment(ctx, declaration["shipment_id"])
    ctx.db.execute("UPDATE customs_declarations SET status = 'cleared', cleared_on = ? WHERE declaration_id = ?",
                   (ctx.today, declaration_id))
    status = shipment["status"]
    if status == "held_customs":
        status = "in_transit"
        ctx.db.execute("UPDATE shipments SET status = 'in_transit' WHERE shipment_id = ?", (shipment["shipment_id"],))
        _event(ctx, shipment["shipment_id"], "customs_cleared", shipment["current_depot_id"],
               f"Declaration {declaration_id} cleared")
    return {"declaration_id": declaration_id, "shipment_id": shipment["shipment_id"], "status": "cleared",
            "shipment_status": status, "duty_cents": declaration["duty_cents"]}


# -- claims -----------------------------------------------------------------------------------

def find_claims(ctx, acting_user_id: str, customer_id: str | None = None, shipment_id: str | None = None,
                status: str | None = None, claim_type: str | None = None, filed_from: str | None = None,
                filed_to: str | None = None, limit: int = 20, offset: int = 0) -> dict:
    actor = _acting_user(ctx, acting_user_id)
    if actor["customer_id"] is not None:
        require_permission(customer_id is None or customer_id == actor["customer_id"], MAY_SEE_CLAIMS)
        customer_id = actor["customer_id"]
    filed_from = optional_date(filed_from, "filed_from")
    filed_to = optional_date(filed_to, "filed_to")
    if filed_from is not None and filed_to is not None and filed_from > filed_to:
        raise InvalidArgumentError("filed_from is after filed_to")
    rows = ctx.db.fetch_all(
        "SELECT claim_id, shipment_id, customer_id, claim_type, amount_claimed_cents, amount_approved_cents, status, "
        "filed_on, resolved_on FROM claims WHERE (? IS NULL OR customer_id = ?) AND (? IS NULL OR shipment_id = ?) "
        "AND (? IS NULL OR status = ?) AND (? IS NULL OR claim_type = ?) AND (? IS NULL OR filed_on >= ?) "
        "AND (? IS NULL OR filed_on <= ?) ORDER BY filed_on DESC, claim_id",
        (customer_id, customer_id, shipment_id, shipment_id, status, status, claim_type, claim_type, filed_from,
         filed_from, filed_to, filed_to))
    return paginate(rows, limit, offset)


def _cover_limit(claim_type: str, shipment: dict) -> int:
    if claim_type == "delay":
        return shipment["paid_cents"] - shipment["refunded_cents"]
    return max(LIABILITY_CENTS, shipment["insured_value_cents"])


def get_claim(ctx, acting_user_id: str, claim_id: str) -> dict:
    actor = _acting_user(ctx, acting_user_id)
    claim = _claim(ctx, claim_id)
    require_permission(actor["staff_id"] is not None or actor["customer_id"] == claim["customer_id"], MAY_VIEW_CLAIM)
    shipment = _shipment(ctx, claim["shipment_id"])
    claim["shipment_status"] = shipment["status"]
    claim["cover_limit_cents"] = _cover_limit(claim["claim_type"], shipment)
    return claim


def file_claim(ctx, acting_customer_id: str, shipment_id: str, claim_type: str, amount_claimed_cents: int,
               description: str) -> dict:
    _acting_customer(ctx, acting_customer_id)
    shipment = _shipment(ctx, shipment_id)
    require_permission(shipment["sender_id"] == acting_customer_id, MAY_FILE_CLAIM)
    if not description.strip():
        raise InvalidArgumentError("description must say what happened")
    pending = ctx.db.fetch_one(
        "SELECT claim_id FROM claims WHERE shipment_id = ? AND status IN ('open', 'approved')", (shipment_id,))
    if pending is not None:
        raise ConflictError(f"shipment {shipment_id} already has claim {pending['claim_id']} in progress")
    if claim_type == "loss":
        if shipment["status"] != "lost":
            raise ConflictError(f"shipment {shipment_id} is {shipment['status']}: loss claims need a shipment "
                                "reported lost")
    else:
        if shipment["status"] != "delivered":
            raise ConflictError(f"shipment {shipment_id} is {shipment['status']}: {claim_type} claims need a "
                                "delivered shipment")
        if claim_type == "damage":
            deadline = (date.fromisoformat(shipment["delivered_on"]) + timedelta(days=DAMAGE_CLAIM_DAYS)).isoformat()
            if ctx.today > deadline:
                raise NotPermittedError(f"damage claims must be filed within {DAMAGE_CLAIM_DAYS} days of delivery "
                                        f"(by {deadline})")
        elif shipment["delivered_on"] <= shipment["promised_by"]:
            raise NotPermittedError(f"shipment {shipment_id} was delivered on {shipment['delivered_on']}, not after "
                                    f"the promised date {shipment['promised_by']}")
        elif amount_claimed_cents > shipment["paid_cents"] - shipment["refunded_cents"]:
            raise InvalidArgumentError("a delay claim cannot exceed the shipping charge paid "
                                       f"({shipment['paid_cents'] - shipment['refunded_cents']} cents)")
    claim_id = ctx.new_id("CLM")
    ctx.db.execute(
        "INSERT INTO claims (claim_id, shipment_id, customer_id, claim_type, amount_claimed_cents, "
        "amount_approved_cents, status, description, filed_on, resolved_on, resolution_note) "
        "VALUES (?, ?, ?, ?, ?, NULL, 'open', ?, ?, NULL, NULL)",
        (claim_id, shipment_id, shipment["sender_id"], claim_type, amount_claimed_cents, description.strip(),
         ctx.today))
    return {"claim_id": claim_id, "shipment_id": shipment_id, "customer_id": shipment["sender_id"], "status": "open",
            "cover_limit_cents": _cover_limit(claim_type, shipment)}


def approve_claim(ctx, acting_staff_id: str, claim_id: str, amount_approved_cents: int,
                  note: str | None = None) -> dict:
    staff = _acting_staff(ctx, acting_staff_id)
    claim = _claim(ctx, claim_id)
    require_permission(staff["role"] == "claims_handler", MAY_APPROVE_CLAIM)
    if claim["status"] != "open":
        raise ConflictError(f"claim {claim_id} is {claim['status']}, not open")
    if amount_approved_cents < 1 or amount_approved_cents > claim["amount_claimed_cents"]:
        raise InvalidArgumentError(f"amount_approved_cents must be between 1 and the amount claimed "
                                   f"({claim['amount_claimed_cents']} cents)")
    shipment = _shipment(ctx, claim["shipment_id"])
    cover = _cover_limit(claim["claim_type"], shipment)
    if amount_approved_cents > cover:
        raise NotPermittedError(f"{amount_approved_cents} cents exceeds the cover limit of {cover} cents for this "
                                f"{claim['claim_type']} claim")
    ctx.db.execute("UPDATE claims SET status = 'approved', amount_approved_cents = ?, resolution_note = ? "
                   "WHERE claim_id = ?", (amount_approved_cents, note, claim_id))
    return {"claim_id": claim_id, "status": "approved", "amount_approved_cents": amount_approved_cents,
            "cover_limit_cents": cover}


def reject_claim(ctx, acting_staff_id: str, claim_id: str, reason: str) -> dict:
    staff = _acting_staff(ctx, acting_staff_id)
    claim = _claim(ctx, claim_id)
    require_permission(staff["role"] == "claims_handler", MAY_REJECT_CLAIM)
    if claim["status"] != "open":
        raise ConflictError(f"claim {claim_id} is {claim['status']}, not open")
    if not reason.strip():
        raise InvalidArgumentError("reason must not be blank")
    ctx.db.execute("UPDATE claims SET status = 'rejected', resolved_on = ?, resolution_note = ? WHERE claim_id = ?",
                   (ctx.today, reason.strip(), claim_id))
    return {"claim_id": claim_id, "status": "rejected", "resolved_on": ctx.today}


def pay_claim(ctx, acting_staff_id: str, claim_id: str) -> dict:
    staff = _acting_staff(ctx, acting_staff_id)
    claim = _claim(ctx, claim_id)
    require_permission(staff["role"] == "claims_handler", MAY_PAY_CLAIM)
    if claim["status"] != "approved":
        raise ConflictError(f"claim {claim_id} is {claim['status']}: only approved claims are paid")
    customer = _customer(ctx, claim["customer_id"])
    amount = claim["amount_approved_cents"]
    credited = 0
    if customer["account_type"] == "business":
        credited = min(amount, customer["account_balance_cents"])
        ctx.db.execute("UPDATE customers SET account_balance_cents = account_balance_cents - ? WHERE customer_id = ?",
                       (credited, customer["customer_id"]))
    ctx.db.execute("UPDATE claims SET status = 'paid', resolved_on = ? WHERE claim_id = ?", (ctx.today, claim_id))
    return {"claim_id": claim_id, "status": "paid", "amount_paid_cents": amount,
            "credited_to_account_cents": credited, "transferred_cents": amount - credited}
