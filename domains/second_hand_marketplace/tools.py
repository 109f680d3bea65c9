"""Tools of the second_hand_marketplace domain: members list used items, haggle, pay into escrow,
ship, dispute, review each other, save searches and report prohibited listings.

Money is GBP pence, weights grams, dates YYYY-MM-DD.
"""

from datetime import date, timedelta

from scaleenv_mcp.toolkit import (
    ConflictError,
    InvalidArgumentError,
    NotFoundError,
    NotPermittedError,
    require_choice,
    require_date,
    optional_choice,
    optional_date,
    paginate,
    require_page,
    require_permission,
    require_row,
)

CATEGORIES = ("electronics", "clothing", "furniture", "books", "sports", "toys", "music", "home")
CONDITIONS = ("new_with_tags", "like_new", "good", "fair", "for_parts")
LISTING_STATUSES = ("draft", "active", "reserved", "sold", "withdrawn", "removed")
OFFER_STATUSES = ("pending", "countered", "accepted", "declined", "expired")
ORDER_STATUSES = ("awaiting_payment", "paid", "shipped", "delivered", "disputed", "completed", "cancelled", "refunded")
DISPUTE_STATUSES = ("open", "awaiting_return", "resolved_refund", "resolved_partial", "rejected")
DISPUTE_REASONS = ("not_received", "not_as_described", "damaged", "counterfeit")
REPORT_REASONS = ("prohibited_item", "counterfeit", "scam", "offensive", "wrong_category")
REPORT_STATUSES = ("open", "upheld", "dismissed")
PAYMENT_METHODS = ("card", "wallet", "bank_transfer")
CARRIERS = ("royal_mail", "evri", "dpd", "inpost")
MIN_PRICE_PENCE = 100
MAX_PRICE_PENCE = 500000
UNVERIFIED_MAX_PENCE = 25000
MAX_PHOTOS = 8
OFFER_DAYS = 2
PAYMENT_DAYS = 3
NOT_RECEIVED_AFTER_DAYS = 5
DISPUTE_WINDOW_DAYS = 14
REVIEW_WINDOW_DAYS = 30
MAX_SAVED_SEARCHES = 10
SHIPPING_TIERS = ((1000, 299), (2000, 399), (5000, 599), (10000, 899))
HEAVY_SHIPPING_PENCE = 1499
FEE_BASE_PENCE = 70
FEE_PERCENT = 5
CARRIER_ADJUST = (("royal_mail", 0), ("evri", -60), ("dpd", 120), ("inpost", -40))
CARRIER_PREFIX = (("royal_mail", "RM"), ("evri", "H01"), ("dpd", "15502"), ("inpost", "IP"))
REMOVING_REASONS = ("prohibited_item", "counterfeit", "scam")

# Who may do what: the one-line permission rules of domain.json, word for word.
RULE_OWN_ACCOUNT = "a member may view only their own account"
RULE_CREATE_LISTING = "a member may create listings only under their own account"
RULE_ADD_PHOTO = "only the seller of the listing may add photos to it"
RULE_PUBLISH = "only the seller of the listing may publish it"
RULE_REPRICE = "only the seller of the listing may change its price"
RULE_WITHDRAW = "only the seller of the listing may withdraw it"
RULE_FIND_OFFERS = "a member sees only the offers they made and the offers on their own listings"
RULE_MAKE_OFFER = "the seller of a listing may not make an offer on it"
RULE_COUNTER = "only the seller of the listing may counter an offer on it"
RULE_ACCEPT = "only the party an offer was made to may accept it: the seller for a buyer's offer, the buyer for a counter-offer"
RULE_DECLINE = "only the party an offer was made to may decline it: the seller for a buyer's offer, the buyer for a counter-offer"
RULE_BUY = "the seller of a listing may not buy it"
RULE_FIND_ORDERS = "a member sees only the orders they bought or sold"
RULE_GET_ORDER = "only the buyer or the seller of an order may view it"
RULE_PAY = "only the buyer of the order may pay it"
RULE_CANCEL = "only the buyer or the seller of the order may cancel it"
RULE_LABEL = "only the seller of the order may buy its shipping label"
RULE_SHIP = "only the seller of the order may mark it shipped"
RULE_DELIVERY = "only the buyer of the order may confirm its delivery"
RULE_COMPLETE = "only the buyer of the order may complete it and release the payment"
RULE_OPEN_DISPUTE = "only the buyer of the order may open a dispute on it"
RULE_DISPUTES_TEAM = "only a moderator of the disputes team may handle disputes and returns"
RULE_REVIEW = "only the buyer or the seller of the order may review it"
RULE_SAVE_SEARCH = "a member may save searches only to their own account"
RULE_LIST_SEARCHES = "a member may see only their own saved searches"
RULE_DELETE_SEARCH = "only the member who saved a search may delete it"
RULE_RUN_SEARCH = "only the member who saved a search may run it"
RULE_REPORT = "the seller of a listing may not report it"
RULE_TRUST_TEAM = "only a moderator of the trust and safety team may review reports"

LISTING_SQL = (
    "SELECT l.listing_id, l.seller_id, m.name AS seller_name, m.city AS seller_city, l.title, l.description, "
    "l.category, l.item_condition, l.price_pence, l.accepts_offers, l.weight_grams, l.status, l.created_on, "
    "l.published_on FROM listings l JOIN members m ON m.member_id = l.seller_id WHERE l.listing_id = ?"
)
ORDER_SQL = (
    "SELECT order_id, listing_id, buyer_id, seller_id, offer_id, item_price_pence, shipping_pence, "
    "protection_fee_pence, total_pence, status, created_on, paid_on, shipped_on, delivered_on, completed_on "
    "FROM orders WHERE order_id = ?"
)
OFFER_SQL = (
    "SELECT offer_id, listing_id, buyer_id, made_by, parent_offer_id, amount_pence, status, message, created_on, "
    "expires_on FROM offers WHERE offer_id = ?"
)
DISPUTE_SQL = (
    "SELECT dispute_id, order_id, opened_by, reason, description, status, refund_pence, opened_on, resolved_on "
    "FROM disputes WHERE dispute_id = ?"
)


# -- helpers (not tools) ------------------------------------------------------------------------

def _member(ctx, member_id: str) -> dict:
    row = ctx.db.fetch_one(
        "SELECT member_id, name, email, date_of_birth, phone, city, postcode, joined_on, status, id_verified, "
        "rating_total, rating_count, wallet_balance_pence FROM members WHERE member_id = ?", (member_id,))
    if row is None:
        raise NotFoundError(f"no member {member_id}")
    row["id_verified"] = bool(row["id_verified"])
    return row


def _acting_member(ctx, acting_member_id: str) -> dict:
    """The member the call acts for, or not_found naming the argument."""
    row = ctx.db.fetch_one("SELECT member_id, name, status FROM members WHERE member_id = ?", (acting_member_id,))
    if row is None:
        raise NotFoundError(f"acting_member_id {acting_member_id}: no such member")
    return row


def _acting_moderator(ctx, acting_moderator_id: str, team: str, rule: str) -> dict:
    """The moderator the call acts for (not_found naming the argument), who must be of ``team``."""
    row = ctx.db.fetch_one("SELECT moderator_id, name, team FROM moderators WHERE moderator_id = ?",
                           (acting_moderator_id,))
    if row is None:
        raise NotFoundError(f"acting_moderator_id {acting_moderator_id}: no such moderator")
    require_permission(row["team"] == team, rule)
    return row


def _active_member(ctx, member_id: str, role: str) -> dict:
    row = _member(ctx, member_id)
    if row["status"] != "active":
        raise NotPermittedError(f"{role} {member_id} is suspended")
    return row


def _listing(ctx, listing_id: str) -> dict:
    row = ctx.db.fetch_one(LISTING_SQL, (listing_id,))
    if row is None:
        raise NotFoundError(f"no listing {listing_id}")
    row["accepts_offers"] = bool(row["accepts_offers"])
    return row


def _order(ctx, order_id: str) -> dict:
    return require_row(ctx, ORDER_SQL, (order_id,), f"no order {order_id}")


def _offer(ctx, offer_id: str) -> dict:
    return require_row(ctx, OFFER_SQL, (offer_id,), f"no offer {offer_id}")


def _dispute(ctx, dispute_id: str) -> dict:
    return require_row(ctx, DISPUTE_SQL, (dispute_id,), f"no dispute {dispute_id}")


def _payment(ctx, order_id: str) -> dict | None:
    return ctx.db.fetch_one(
        "SELECT payment_id, order_id, method, amount_pence, refunded_pence, released_pence, status, held_on, "
        "settled_on FROM escrow_payments WHERE order_id = ?", (order_id,))


def _escrow(ctx, order_id: str) -> dict:
    """The order's escrow payment, for the tools that move its money: only money still held can move."""
    payment = _payment(ctx, order_id)
    if payment is None:
        raise ConflictError(f"order {order_id} has no escrow payment on record; its money cannot be moved")
    if payment["status"] != "held":
        raise ConflictError(f"escrow payment {payment['payment_id']} of order {order_id} is already {payment['status']}")
    return payment


def _shipping_pence(weight_grams: int) -> int:
    for limit, price in SHIPPING_TIERS:
        if weight_grams <= limit:
            return price
    return HEAVY_SHIPPING_PENCE


def _fee_pence(item_pence: int) -> int:
    return FEE_BASE_PENCE + (item_pence * FEE_PERCENT + 50) // 100


def _days_between(start: str, end: str) -> int:
    return (date.fromisoformat(end) - date.fromisoformat(start)).days


def _check_price(ctx, seller: dict, price_pence: int) -> None:
    if price_pence < MIN_PRICE_PENCE or price_pence > MAX_PRICE_PENCE:
        raise InvalidArgumentError(f"price_pence must be between {MIN_PRICE_PENCE} and {MAX_PRICE_PENCE}; got {price_pence}")
    if not seller["id_verified"] and price_pence > UNVERIFIED_MAX_PENCE:
        raise NotPermittedError(
            f"seller {seller['member_id']} is not ID-verified and may not price above {UNVERIFIED_MAX_PENCE} pence")


def _decline_pending(ctx, listing_id: str) -> int:
    return ctx.db.execute("UPDATE offers SET status = 'declined' WHERE listing_id = ? AND status = 'pending'",
                          (listing_id,))


def _new_order(ctx, listing: dict, buyer_id: str, price_pence: int, offer_id) -> dict:
    shipping = _shipping_pence(listing["weight_grams"])
    fee = _fee_pence(price_pence)
    order_id = ctx.new_id("ORD")
    total = price_pence + shipping + fee
    ctx.db.execute(
        "INSERT INTO orders (order_id, listing_id, buyer_id, seller_id, offer_id, item_price_pence, shipping_pence, "
        "protection_fee_pence, total_pence, status, created_on, paid_on, shipped_on, delivered_on, completed_on) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'awaiting_payment', ?, NULL, NULL, NULL, NULL)",
        (order_id, listing["listing_id"], buyer_id, listing["seller_id"], offer_id, price_pence, shipping, fee, total,
         ctx.today))
    ctx.db.execute("UPDATE listings SET status = 'reserved' WHERE listing_id = ?", (listing["listing_id"],))
    return {"order_id": order_id, "listing_id": listing["listing_id"], "buyer_id": buyer_id,
            "seller_id": listing["seller_id"], "offer_id": offer_id, "item_price_pence": price_pence,
            "shipping_pence": shipping, "protection_fee_pence": fee, "total_pence": total,
            "status": "awaiting_payment", "pay_by": (date.fromisoformat(ctx.today) + timedelta(days=PAYMENT_DAYS)).isoformat()}


def _new_label(ctx, order_id: str, direction: str, carrier: str, weight_grams: int) -> dict:
    require_choice(carrier, CARRIERS, "carrier")
    label_id = ctx.new_id("LBL")
    adjust = dict(CARRIER_ADJUST)[carrier]
    cost = _shipping_pence(weight_grams) + adjust
    number = int(label_id.split("-")[1]) * 7919 + 104729
    tracking_number = dict(CARRIER_PREFIX)[carrier] + str(number).zfill(9) + "GB"
    ctx.db.execute(
        "INSERT INTO shipping_labels (label_id, order_id, direction, carrier, tracking_number, weight_grams, cost_pence, "
        "status, created_on) VALUES (?, ?, ?, ?, ?, ?, ?, 'created', ?)",
        (label_id, order_id, direction, carrier, tracking_number, weight_grams, cost, ctx.today))
    return {"label_id": label_id, "order_id": order_id, "direction": direction, "carrier": carrier,
            "tracking_number": tracking_number, "weight_grams": weight_grams, "cost_pence": cost, "status": "created"}


def _refund_buyer(ctx, payment: dict, buyer_id: str, amount: int) -> None:
    if payment["method"] == "wallet":
        ctx.db.execute("UPDATE members SET wallet_balance_pence = wallet_balance_pence + ? WHERE member_id = ?",
                       (amount, buyer_id))


# -- identification -----------------------------------------------------------------------------

def identify_member(ctx, email: str | None = None, name: str | None = None, date_of_birth: str | None = None,
                    phone: str | None = None) -> dict:
    if email is None and name is None and phone is None:
        raise InvalidArgumentError("give the member's email, phone, or full name with date of birth")
    if date_of_birth is not None:
        require_date(date_of_birth, "date_of_birth")
        if name is None:
            raise InvalidArgumentError("date_of_birth identifies a member only together with name")
    rows = ctx.db.fetch_all(
        "SELECT member_id, name, email, city, status FROM members "
        "WHERE (? IS NULL OR lower(email) = lower(?)) AND (? IS NULL OR replace(phone, ' ', '') = replace(?, ' ', '')) "
        "AND (? IS NULL OR lower(name) = lower(?)) AND (? IS NULL OR date_of_birth = ?) ORDER BY member_id",
        (email, email, phone, phone, name, name, date_of_birth, date_of_birth))
    if not rows:
        raise NotFoundError("no member matches these details; check the spelling or ask for another detail")
    if len(rows) > 1:
        raise ConflictError(f"{len(rows)} members are named {name}; ask for the date of birth, email or phone")
    return rows[0]


def identify_moderator(ctx, email: str | None = None, name: str | None = None) -> dict:
    if email is None and name is None:
        raise InvalidArgumentError("give the moderator's work email or full name")
    rows = ctx.db.fetch_all(
        "SELECT moderator_id, name, email, team FROM moderators WHERE (? IS NULL OR lower(email) = lower(?)) "
        "AND (? IS NULL OR lower(name) = lower(?)) ORDER BY moderator_id", (email, email, name, name))
    if not rows:
        raise NotFoundError("no moderator matches these details; check the spelling or ask for the work email")
    if len(rows) > 1:
        raise ConflictError(f"{len(rows)} moderators are named {name}; ask for the work email")
    return rows[0]


# -- members ------------------------------------------------------------------------------------

def find_members(ctx, name: str | None = None, city: str | None = None, status: str | None = None,
                 limit: int = 20, offset: int = 0) -> dict:
    optional_choice(status, ("active", "suspended"), "status")
    require_page(limit, offset)
    rows = ctx.db.fetch_all(
        "SELECT member_id, name, city, status, id_verified, rating_total, rating_count FROM members "
        "WHERE (? IS NULL OR name LIKE '%' || ? || '%') AND (? IS NULL OR city = ?) AND (? IS NULL OR status = ?) "
        "ORDER BY member_id", (name, name, city, city, status, status))
    items = []
    for row in rows[offset:offset + limit]:
        items.append({"member_id": row["member_id"], "name": row["name"], "city": row["city"],
                      "status": row["status"], "id_verified": bool(row["id_verified"]),
                      "rating_average": round(row["rating_total"] / row["rating_count"], 2) if row["rating_count"] else None,
                      "rating_count": row["rating_count"]})
    return {"items": items, "total": len(rows)}


def get_member(ctx, acting_member_id: str, member_id: str) -> dict:
    _acting_member(ctx, acting_member_id)
    row = _member(ctx, member_id)
    require_permission(acting_member_id == member_id, RULE_OWN_ACCOUNT)
    counts = ctx.db.fetch_one(
        "SELECT (SELECT count(*) FROM listings WHERE seller_id = ? AND status = 'active') AS active_listings, "
        "(SELECT count(*) FROM orders WHERE buyer_id = ? OR seller_id = ?) AS orders",
        (member_id, member_id, member_id))
    row["rating_average"] = round(row["rating_total"] / row["rating_count"], 2) if row["rating_count"] else None
    row["active_listings"] = counts["active_listings"]
    row["orders"] = counts["orders"]
    return row


# -- listings -----------------------------------------------------------------------------------

def search_listings(ctx, text: str | None = None, category: str | None = None, item_condition: str | None = None,
                    min_price_pence: int | None = None, max_price_pence: int | None = None,
                    seller_id: str | None = None, city: str | None = None, status: str | None = "active",
                    limit: int = 20, offset: int = 0) -> dict:
    require_page(limit, offset)
    optional_choice(category, CATEGORIES, "category")
    optional_choice(item_condition, CONDITIONS, "item_condition")
    optional_choice(status, LISTING_STATUSES, "status")
    if min_price_pence is not None and max_price_pence is not None and min_price_pence > max_price_pence:
        raise InvalidArgumentError("min_price_pence must not exceed max_price_pence")
    rows = ctx.db.fetch_all(
        "SELECT l.listing_id, l.seller_id, m.name AS seller_name, m.city AS seller_city, l.title, l.category, "
        "l.item_condition, l.price_pence, l.accepts_offers, l.status, l.published_on FROM listings l "
        "JOIN members m ON m.member_id = l.seller_id "
        "WHERE (? IS NULL OR l.title LIKE '%' || ? || '%' OR l.description LIKE '%' || ? || '%') "
        "AND (? IS NULL OR l.category = ?) AND (? IS NULL OR l.item_condition = ?) "
        "AND (? IS NULL OR l.price_pence >= ?) AND (? IS NULL OR l.price_pence <= ?) "
        "AND (? IS NULL OR l.seller_id = ?) AND (? IS NULL OR m.city = ?) AND (? IS NULL OR l.status = ?) "
        "ORDER BY l.listing_id",
        (text, text, text, category, category, item_condition, item_condition, min_price_pence, min_price_pence,
         max_price_pence, max_price_pence, seller_id, seller_id, city, city, status, status))
    items = rows[offset:offset + limit]
    for row in items:
        row["accepts_offers"] = bool(row["accepts_offers"])
    return {"items": items, "total": len(rows)}


def get_listing(ctx, listing_id: str) -> dict:
    row = _listing(ctx, listing_id)
    row["photos"] = ctx.db.fetch_all(
        "SELECT photo_id, url, position, caption FROM listing_photos WHERE listing_id = ? ORDER BY position",
        (listing_id,))
    row["pending_offers"] = ctx.db.fetch_one(
        "SELECT count(*) AS n FROM offers WHERE listing_id = ? AND status = 'pending' AND expires_on >= ?",
        (listing_id, ctx.today))["n"]
    return row


def create_listing(ctx, acting_member_id: str, seller_id: str, title: str, description: str, category: str,
                   item_condition: str, price_pence: int, weight_grams: int, accepts_offers: bool = True) -> dict:
    _acting_member(ctx, acting_member_id)
    require_permission(seller_id == acting_member_id, RULE_CREATE_LISTING)
    require_choice(category, CATEGORIES, "category")
    require_choice(item_condition, CONDITIONS, "item_condition")
    if len(title.strip()) < 3 or len(title) > 80:
        raise InvalidArgumentError("title must be 3 to 80 characters")
    if weight_grams < 1 or weight_grams > 30000:
        raise InvalidArgumentError("weight_grams must be between 1 and 30000")
    seller = _active_member(ctx, seller_id, "seller")
    _check_price(ctx, seller, price_pence)
    listing_id = ctx.new_id("LST")
    ctx.db.execute(
        "INSERT INTO listings (listing_id, seller_id, title, description, category, item_condition, price_pence, "
        "accepts_offers, weight_grams, status, created_on, published_on) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'draft', ?, NULL)",
        (listing_id, seller_id, title, description, category, item_condition, price_pence,
         1 if accepts_offers else 0, weight_grams, ctx.today))
    return {"listing_id": listing_id, "seller_id": seller_id, "status": "draft", "price_pence": price_pence}


def add_listing_photo(ctx, acting_member_id: str, listing_id: str, url: str, caption: str | None = None) -> dict:
    _acting_member(ctx, acting_member_id)
    listing = _listing(ctx, listing_id)
    require_permission(listing["seller_id"] == acting_member_id, RULE_ADD_PHOTO)
    if not url.startswith("https://"):
        raise InvalidArgumentError("url must start with https://")
    if listing["status"] not in ("draft", "active"):
        raise ConflictError(f"listing {listing_id} is {listing['status']}; photos can be added to draft or active listings only")
    top = ctx.db.fetch_one("SELECT count(*) AS n, coalesce(max(position), 0) AS top FROM listing_photos WHERE listing_id = ?",
                           (listing_id,))
    if top["n"] >= MAX_PHOTOS:
        raise ConflictError(f"listing {listing_id} already has {MAX_PHOTOS} photos")
    photo_id = ctx.new_id("PHO")
    ctx.db.execute("INSERT INTO listing_photos (photo_id, listing_id, url, position, caption) VALUES (?, ?, ?, ?, ?)",
                   (photo_id, listing_id, url, top["top"] + 1, caption))
    return {"photo_id": photo_id, "listing_id": listing_id, "position": top["top"] + 1, "photo_count": top["n"] + 1}


def publish_listing(ctx, acting_member_id: str, listing_id: str) -> dict:
    _acting_member(ctx, acting_member_id)
    listing = _listing(ctx, listing_id)
    require_permission(listing["seller_id"] == acting_member_id, RULE_PUBLISH)
    if listing["status"] not in ("draft", "withdrawn"):
        raise ConflictError(f"listing {listing_id} is {listing['status']}; only draft or withdrawn listings can be published")
    _active_member(ctx, listing["seller_id"], "seller")
    photos = ctx.db.fetch_one("SELECT count(*) AS n FROM listing_photos WHERE listing_id = ?", (listing_id,))["n"]
    if photos < 1:
        raise ConflictError(f"listing {listing_id} has no photo; add one with add_listing_photo first")
    ctx.db.execute("UPDATE listings SET status = 'active', published_on = ? WHERE listing_id = ?", (ctx.today, listing_id))
    return {"listing_id": listing_id, "status": "active", "published_on": ctx.today, "photo_count": photos}


def update_listing_price(ctx, acting_member_id: str, listing_id: str, price_pence: int) -> dict:
    _acting_member(ctx, acting_member_id)
    listing = _listing(ctx, listing_id)
    require_permission(listing["seller_id"] == acting_member_id, RULE_REPRICE)
    if listing["status"] not in ("draft", "active"):
        raise ConflictError(f"listing {listing_id} is {listing['status']}; only draft or active listings can be repriced")
    if price_pence == listing["price_pence"]:
        raise ConflictError(f"listing {listing_id} already costs {price_pence} pence")
    seller = _member(ctx, listing["seller_id"])
    _check_price(ctx, seller, price_pence)
    ctx.db.execute("UPDATE listings SET price_pence = ? WHERE listing_id = ?", (price_pence, listing_id))
    return {"listing_id": listing_id, "previous_price_pence": listing["price_pence"], "price_pence": price_pence}


def withdraw_listing(ctx, acting_member_id: str, listing_id: str) -> dict:
    _acting_member(ctx, acting_member_id)
    listing = _listing(ctx, listing_id)
    require_permission(listing["seller_id"] == acting_member_id, RULE_WITHDRAW)
    if listing["status"] not in ("draft", "active"):
        raise ConflictError(f"listing {listing_id} is {listing['status']}; only draft or active listings can be withdrawn")
    ctx.db.execute("UPDATE listings SET status = 'withdrawn' WHERE listing_id = ?", (listing_id,))
    declined = _decline_pending(ctx, listing_id)
    return {"listing_id": listing_id, "status": "withdrawn", "offers_declined": declined}


# -- offers -------------------------------------------------------------------------------------

def find_offers(ctx, acting_member_id: str, listing_id: str | None = None, buyer_id: str | None = None,
                status: str | None = None, limit: int = 20, offset: int = 0) -> dict:
    require_page(limit, offset)
    optional_choice(status, OFFER_STATUSES, "status")
    _acting_member(ctx, acting_member_id)
    if buyer_id is not None and buyer_id != acting_member_id:
        seller = None if listing_id is None else ctx.db.fetch_one(
            "SELECT seller_id FROM listings WHERE listing_id = ?", (listing_id,))
        require_permission(seller is not None and seller["seller_id"] == acting_member_id, RULE_FIND_OFFERS)
    rows = ctx.db.fetch_all(
        "SELECT o.offer_id, o.listing_id, l.title, l.seller_id, o.buyer_id, o.made_by, o.parent_offer_id, o.amount_pence, "
        "o.status, o.created_on, o.expires_on FROM offers o JOIN listings l ON l.listing_id = o.listing_id "
        "WHERE (o.buyer_id = ? OR l.seller_id = ?) "
        "AND (? IS NULL OR o.listing_id = ?) AND (? IS NULL OR o.buyer_id = ?) AND (? IS NULL OR o.status = ?) "
        "ORDER BY o.offer_id", (acting_member_id, acting_member_id, listing_id, listing_id, buyer_id, buyer_id,
                                status, status))
    items = rows[offset:offset + limit]
    for row in items:
        row["is_expired"] = row["status"] == "pending" and row["expires_on"] < ctx.today
    return {"items": items, "total": len(rows)}


def make_offer(ctx, acting_member_id: str, listing_id: str, amount_pence: int, message: str | None = None) -> dict:
    _acting_member(ctx, acting_member_id)
    buyer_id = acting_member_id
    listing = _listing(ctx, listing_id)
    require_permission(buyer_id != listing["seller_id"], RULE_MAKE_OFFER)
    _active_member(ctx, buyer_id, "buyer")
    if listing["status"] != "active":
        raise ConflictError(f"listing {listing_id} is {listing['status']}, not active")
    if not listing["accepts_offers"]:
        raise ConflictError(f"listing {listing_id} does not accept offers; use buy_now")
    floor = (listing["price_pence"] + 1) // 2
    if amount_pence < floor or amount_pence >= listing["price_pence"]:
        raise InvalidArgumentError(
            f"amount_pence must be at least {floor} (half the price) and below the price {listing['price_pence']}")
    mine = ctx.db.fetch_one(
        "SELECT offer_id FROM offers WHERE listing_id = ? AND buyer_id = ? AND status = 'pending' AND expires_on >= ?",
        (listing_id, buyer_id, ctx.today))
    if mine is not None:
        raise ConflictError(f"buyer already has pending offer {mine['offer_id']} on this listing")
    offer_id = ctx.new_id("OFR")
    expires = (date.fromisoformat(ctx.today) + timedelta(days=OFFER_DAYS)).isoformat()
    ctx.db.execute(
        "INSERT INTO offers (offer_id, listing_id, buyer_id, made_by, parent_offer_id, amount_pence, status, message, "
        "created_on, expires_on) VALUES (?, ?, ?, 'buyer', NULL, ?, 'pending', ?, ?, ?)",
        (offer_id, listing_id, buyer_id, amount_pence, message, ctx.today, expires))
    return {"offer_id": offer_id, "listing_id": listing_id, "buyer_id": buyer_id, "amount_pence": amount_pence,
            "status": "pending", "expires_on": expires}


def _open_offer(ctx, offer_id: str) -> dict:
    offer = _offer(ctx, offer_id)
    if offer["status"] != "pending":
        raise ConflictError(f"offer {offer_id} is {offer['status']}, not pending")
    if offer["expires_on"] < ctx.today:
        raise ConflictError(f"offer {offer_id} expired on {offer['expires_on']}")
    return offer


def counter_offer(ctx, acting_member_id: str, offer_id: str, amount_pence: int) -> dict:
    _acting_member(ctx, acting_member_id)
    seller = ctx.db.fetch_one("SELECT l.seller_id FROM offers o JOIN listings l ON l.listing_id = o.listing_id "
                              "WHERE o.offer_id = ?", (offer_id,))
    if seller is None:
        raise NotFoundError(f"no offer {offer_id}")
    require_permission(seller["seller_id"] == acting_member_id, RULE_COUNTER)
    offer = _open_offer(ctx, offer_id)
    if offer["made_by"] != "buyer":
        raise ConflictError(f"offer {offer_id} is already the seller's counter-offer; only buyer offers can be countered")
    listing = _listing(ctx, offer["listing_id"])
    if amount_pence <= offer["amount_pence"] or amount_pence >= listing["price_pence"]:
        raise InvalidArgumentError(
            f"a counter-offer must be above {offer['amount_pence']} and below the price {listing['price_pence']}")
    ctx.db.execute("UPDATE offers SET status = 'countered' WHERE offer_id = ?", (offer_id,))
    counter_id = ctx.new_id("OFR")
    expires = (date.fromisoformat(ctx.today) + timedelta(days=OFFER_DAYS)).isoformat()
    ctx.db.execute(
        "INSERT INTO offers (offer_id, listing_id, buyer_id, made_by, parent_offer_id, amount_pence, status, message, "
        "created_on, expires_on) VALUES (?, ?, ?, 'seller', ?, ?, 'pending', NULL, ?, ?)",
        (counter_id, offer["listing_id"], offer["buyer_id"], offer_id, amount_pence, ctx.today, expires))
    return {"offer_id": counter_id, "parent_offer_id": offer_id, "listing_id": offer["listing_id"],
            "buyer_id": offer["buyer_id"], "amount_pence": amount_pence, "status": "pending", "expires_on": expires}


def _offer_recipient(ctx, offer: dict) -> str:
    """Who an offer was made to: the seller for a buyer's offer, the buyer for a seller's counter-offer."""
    if offer["made_by"] == "seller":
        return offer["buyer_id"]
    return ctx.db.fetch_one("SELECT seller_id FROM listings WHERE listing_id = ?", (offer["listing_id"],))["seller_id"]


def accept_offer(ctx, acting_member_id: str, offer_id: str) -> dict:
    _acting_member(ctx, acting_member_id)
    require_permission(_offer_recipient(ctx, _offer(ctx, offer_id)) == acting_member_id, RULE_ACCEPT)
    offer = _open_offer(ctx, offer_id)
    listing = _listing(ctx, offer["listing_id"])
    if listing["status"] != "active":
        raise ConflictError(f"listing {listing['listing_id']} is {listing['status']}, not active")
    _active_member(ctx, offer["buyer_id"], "buyer")
    ctx.db.execute("UPDATE offers SET status = 'accepted' WHERE offer_id = ?", (offer_id,))
    declined = _decline_pending(ctx, listing["listing_id"])
    order = _new_order(ctx, listing, offer["buyer_id"], offer["amount_pence"], offer_id)
    order["offers_declined"] = declined
    return order


def decline_offer(ctx, acting_member_id: str, offer_id: str) -> dict:
    _acting_member(ctx, acting_member_id)
    offer = _offer(ctx, offer_id)
    require_permission(_offer_recipient(ctx, offer) == acting_member_id, RULE_DECLINE)
    if offer["status"] != "pending":
        raise ConflictError(f"offer {offer_id} is {offer['status']}, not pending")
    ctx.db.execute("UPDATE offers SET status = 'declined' WHERE offer_id = ?", (offer_id,))
    return {"offer_id": offer_id, "listing_id": offer["listing_id"], "status": "declined"}


# -- orders -------------------------------------------------------------------------------------

def buy_now(ctx, acting_member_id: str, listing_id: str) -> dict:
    _acting_member(ctx, acting_member_id)
    buyer_id = acting_member_id
    listing = _listing(ctx, listing_id)
    require_permission(buyer_id != listing["seller_id"], RULE_BUY)
    _active_member(ctx, buyer_id, "buyer")
    if listing["status"] != "active":
        raise ConflictError(f"listing {listing_id} is {listing['status']}, not active")
    declined = _decline_pending(ctx, listing_id)
    order = _new_order(ctx, listing, buyer_id, listing["price_pence"], None)
    order["offers_declined"] = declined
    return order


def find_orders(ctx, acting_member_id: str, buyer_id: str | None = None, seller_id: str | None = None,
                status: str | None = None, created_from: str | None = None, created_to: str | None = None,
                limit: int = 20, offset: int = 0) -> dict:
    require_page(limit, offset)
    optional_choice(status, ORDER_STATUSES, "status")
    created_from = optional_date(created_from, "created_from")
    created_to = optional_date(created_to, "created_to")
    _acting_member(ctx, acting_member_id)
    require_permission(acting_member_id in (buyer_id, seller_id) or (buyer_id is None and seller_id is None),
                       RULE_FIND_ORDERS)
    rows = ctx.db.fetch_all(
        "SELECT o.order_id, o.listing_id, l.title, o.buyer_id, o.seller_id, o.total_pence, o.status, o.created_on "
        "FROM orders o JOIN listings l ON l.listing_id = o.listing_id WHERE (o.buyer_id = ? OR o.seller_id = ?) "
        "AND (? IS NULL OR o.buyer_id = ?) AND (? IS NULL OR o.seller_id = ?) AND (? IS NULL OR o.status = ?) "
        "AND (? IS NULL OR o.created_on >= ?) AND (? IS NULL OR o.created_on <= ?) ORDER BY o.order_id",
        (acting_member_id, acting_member_id, buyer_id, buyer_id, seller_id, seller_id, status, status,
         created_from, created_from, created_to, created_to))
    return paginate(rows, limit, offset)


def get_order(ctx, acting_member_id: str, order_id: str) -> dict:
    _acting_member(ctx, acting_member_id)
    order = _order(ctx, order_id)
    require_permission(acting_member_id in (order["buyer_id"], order["seller_id"]), RULE_GET_ORDER)
    order["payment"] = _payment(ctx, order_id)
    order["labels"] = ctx.db.fetch_all(
        "SELECT label_id, direction, carrier, tracking_number, cost_pence, status, created_on FROM shipping_labels "
        "WHERE order_id = ? ORDER BY label_id", (order_id,))
    order["disputes"] = ctx.db.fetch_all(
        "SELECT dispute_id, reason, status, refund_pence, opened_on FROM disputes WHERE order_id = ? ORDER BY dispute_id",
        (order_id,))
    return order


def pay_order(ctx, acting_member_id: str, order_id: str, method: str) -> dict:
    require_choice(method, PAYMENT_METHODS, "method")
    _acting_member(ctx, acting_member_id)
    order = _order(ctx, order_id)
    require_permission(order["buyer_id"] == acting_member_id, RULE_PAY)
    if order["status"] != "awaiting_payment":
        raise ConflictError(f"order {order_id} is {order['status']}, not awaiting payment")
    if _days_between(order["created_on"], ctx.today) > PAYMENT_DAYS:
        raise ConflictError(f"the {PAYMENT_DAYS}-day payment window of order {order_id} has closed; cancel it")
    buyer = _active_member(ctx, order["buyer_id"], "buyer")
    if method == "wallet":
        if buyer["wallet_balance_pence"] < order["total_pence"]:
            raise ConflictError(
                f"wallet holds {buyer['wallet_balance_pence']} pence, less than the total {order['total_pence']}")
        ctx.db.execute("UPDATE members SET wallet_balance_pence = wallet_balance_pence - ? WHERE member_id = ?",
                       (order["total_pence"], buyer["member_id"]))
    payment_id = ctx.new_id("PAY")
    ctx.db.execute(
        "INSERT INTO escrow_payments (payment_id, order_id, method, amount_pence, refunded_pence, released_pence, status, "
        "held_on, settled_on) VALUES (?, ?, ?, ?, 0, 0, 'held', ?, NULL)",
        (payment_id, order_id, method, order["total_pence"], ctx.today))
    ctx.db.execute("UPDATE orders SET status = 'paid', paid_on = ? WHERE order_id = ?", (ctx.today, order_id))
    return {"order_id": order_id, "payment_id": payment_id, "amount_pence": order["total_pence"], "method": method,
            "status": "paid", "escrow_status": "held"}


def cancel_order(ctx, acting_member_id: str, order_id: str) -> dict:
    _acting_member(ctx, acting_member_id)
    order = _order(ctx, order_id)
    require_permission(acting_member_id in (order["buyer_id"], order["seller_id"]), RULE_CANCEL)
    if order["status"] not in ("awaiting_payment", "paid"):
        raise ConflictError(f"order {order_id} is {order['status']}; only unpaid or paid, unshipped orders can be cancelled")
    refunded = 0
    if order["status"] == "paid":
        payment = _escrow(ctx, order_id)
        refunded = payment["amount_pence"]
        ctx.db.execute(
            "UPDATE escrow_payments SET status = 'refunded', refunded_pence = amount_pence, settled_on = ? "
            "WHERE payment_id = ?", (ctx.today, payment["payment_id"]))
        _refund_buyer(ctx, payment, order["buyer_id"], refunded)
        ctx.db.execute("UPDATE shipping_labels SET status = 'void' WHERE order_id = ? AND status = 'created'", (order_id,))
    ctx.db.execute("UPDATE orders SET status = 'cancelled' WHERE order_id = ?", (order_id,))
    ctx.db.execute("UPDATE listings SET status = 'active' WHERE listing_id = ?", (order["listing_id"],))
    return {"order_id": order_id, "status": "cancelled", "refunded_pence": refunded, "listing_id": order["listing_id"],
            "listing_status": "active"}


def create_shipping_label(ctx, acting_member_id: str, order_id: str, carrier: str) -> dict:
    require_choice(carrier, CARRIERS, "carrier")
    _acting_member(ctx, acting_member_id)
    order = _order(ctx, order_id)
    require_permission(order["seller_id"] == acting_member_id, RULE_LABEL)
    if order["status"] != "paid":
        raise ConflictError(f"order {order_id} is {order['status']}; labels are bought for paid orders only")
    existing = ctx.db.fetch_one(
        "SELECT label_id FROM shipping_labels WHERE order_id = ? AND direction = 'outbound' AND status <> 'void'",
        (order_id,))
    if existing is not None:
        raise ConflictError(f"order {order_id} already has outbound label {existing['label_id']}")
    weight = ctx.db.fetch_one("SELECT weight_grams FROM listings WHERE listing_id = ?", (order["listing_id"],))["weight_grams"]
    return _new_label(ctx, order_id, "outbound", carrier, weight)


def mark_order_shipped(ctx, acting_member_id: str, order_id: str) -> dict:
    _acting_member(ctx, acting_member_id)
    order = _order(ctx, order_id)
    require_permission(order["seller_id"] == acting_member_id, RULE_SHIP)
    if order["status"] != "paid":
        raise ConflictError(f"order {order_id} is {order['status']}, not paid")
    label = ctx.db.fetch_one(
        "SELECT label_id, tracking_number FROM shipping_labels WHERE order_id = ? AND direction = 'outbound' "
        "AND status = 'created'", (order_id,))
    if label is None:
        raise ConflictError(f"order {order_id} has no shipping label; create_shipping_label first")
    ctx.db.execute("UPDATE shipping_labels SET status = 'in_transit' WHERE label_id = ?", (label["label_id"],))
    ctx.db.execute("UPDATE orders SET status = 'shipped', shipped_on = ? WHERE order_id = ?", (ctx.today, order_id))
    return {"order_id": order_id, "status": "shipped", "shipped_on": ctx.today, "label_id": label["label_id"],
            "tracking_number": label["tracking_number"]}


def confirm_delivery(ctx, acting_member_id: str, order_id: str) -> dict:
    _acting_member(ctx, acting_member_id)
    order = _order(ctx, order_id)
    require_permission(order["buyer_id"] == acting_member_id, RULE_DELIVERY)
    if order["status"] != "shipped":
        raise ConflictError(f"order {order_id} is {order['status']}, not shipped")
    ctx.db.execute("UPDATE shipping_labels SET status = 'delivered' WHERE order_id = ? AND direction = 'outbound' "
                   "AND status = 'in_transit'", (order_id,))
    ctx.db.execute("UPDATE orders SET status = 'delivered', delivered_on = ? WHERE order_id = ?", (ctx.today, order_id))
    return {"order_id": order_id, "status": "delivered", "delivered_on": ctx.today}


def complete_order(ctx, acting_member_id: str, order_id: str) -> dict:
    _acting_member(ctx, acting_member_id)
    order = _order(ctx, order_id)
    require_permission(order["buyer_id"] == acting_member_id, RULE_COMPLETE)
    if order["status"] != "delivered":
        raise ConflictError(f"order {order_id} is {order['status']}; only delivered orders without an open dispute complete")
    payment = _escrow(ctx, order_id)
    payout = order["item_price_pence"] + order["shipping_pence"]
    ctx.db.execute("UPDATE escrow_payments SET status = 'released', released_pence = ?, settled_on = ? WHERE payment_id = ?",
                   (payout, ctx.today, payment["payment_id"]))
    ctx.db.execute("UPDATE members SET wallet_balance_pence = wallet_balance_pence + ? WHERE member_id = ?",
                   (payout, order["seller_id"]))
    ctx.db.execute("UPDATE orders SET status = 'completed', completed_on = ? WHERE order_id = ?", (ctx.today, order_id))
    ctx.db.execute("UPDATE listings SET status = 'sold' WHERE listing_id = ?", (order["listing_id"],))
    return {"order_id": order_id, "status": "completed", "payment_id": payment["payment_id"],
            "released_pence": payout, "seller_id": order["seller_id"]}


# -- disputes -----------------------------------------------------------------------------------

def open_dispute(ctx, acting_member_id: str, order_id: str, reason: str, description: str) -> dict:
    require_choice(reason, DISPUTE_REASONS, "reason")
    _acting_member(ctx, acting_member_id)
    order = _order(ctx, order_id)
    require_permission(order["buyer_id"] == acting_member_id, RULE_OPEN_DISPUTE)
    if order["status"] == "disputed":
        raise ConflictError(f"order {order_id} already has an open dispute")
    if reason == "not_received":
        if order["status"] != "shipped":
            raise ConflictError(f"not_received disputes are for shipped, undelivered orders; order is {order['status']}")
        if _days_between(order["shipped_on"], ctx.today) < NOT_RECEIVED_AFTER_DAYS:
            raise ConflictError(f"wait {NOT_RECEIVED_AFTER_DAYS} days after shipping before reporting an item not received")
    else:
        if order["status"] != "delivered":
            raise ConflictError(f"{reason} disputes are for delivered orders; order is {order['status']}")
        if _days_between(order["delivered_on"], ctx.today) > DISPUTE_WINDOW_DAYS:
            raise ConflictError(f"the {DISPUTE_WINDOW_DAYS}-day dispute window after delivery has closed")
    dispute_id = ctx.new_id("DSP")
    ctx.db.execute(
        "INSERT INTO disputes (dispute_id, order_id, opened_by, reason, description, status, refund_pence, opened_on, "
        "resolved_on) VALUES (?, ?, ?, ?, ?, 'open', 0, ?, NULL)",
        (dispute_id, order_id, order["buyer_id"], reason, description, ctx.today))
    ctx.db.execute("UPDATE orders SET status = 'disputed' WHERE order_id = ?", (order_id,))
    return {"dispute_id": dispute_id, "order_id": order_id, "reason": reason, "status": "open"}


def find_disputes(ctx, acting_moderator_id: str, status: str | None = None, reason: str | None = None,
                  order_id: str | None = None, opened_by: str | None = None, limit: int = 20, offset: int = 0) -> dict:
    require_page(limit, offset)
    optional_choice(status, DISPUTE_STATUSES, "status")
    optional_choice(reason, DISPUTE_REASONS, "reason")
    _acting_moderator(ctx, acting_moderator_id, "disputes", RULE_DISPUTES_TEAM)
    rows = ctx.db.fetch_all(
        "SELECT d.dispute_id, d.order_id, d.opened_by, o.seller_id, d.reason, d.status, d.refund_pence, d.opened_on, "
        "d.resolved_on FROM disputes d JOIN orders o ON o.order_id = d.order_id "
        "WHERE (? IS NULL OR d.status = ?) AND (? IS NULL OR d.reason = ?) AND (? IS NULL OR d.order_id = ?) "
        "AND (? IS NULL OR d.opened_by = ?) ORDER BY d.dispute_id",
        (status, status, reason, reason, order_id, order_id, opened_by, opened_by))
    return paginate(rows, limit, offset)


def request_return(ctx, acting_moderator_id: str, dispute_id: str, carrier: str) -> dict:
    require_choice(carrier, CARRIERS, "carrier")
    _acting_moderator(ctx, acting_moderator_id, "disputes", RULE_DISPUTES_TEAM)
    dispute = _dispute(ctx, dispute_id)
    if dispute["status"] != "open":
        raise ConflictError(f"dispute {dispute_id} is {dispute['status']}, not open")
    if dispute["reason"] == "not_received":
        raise ConflictError("an item that never arrived cannot be returned")
    order = _order(ctx, dispute["order_id"])
    weight = ctx.db.fetch_one("SELECT weight_grams FROM listings WHERE listing_id = ?", (order["listing_id"],))["weight_grams"]
    label = _new_label(ctx, order["order_id"], "return", carrier, weight)
    ctx.db.execute("UPDATE disputes SET status = 'awaiting_return' WHERE dispute_id = ?", (dispute_id,))
    label["dispute_id"] = dispute_id
    label["dispute_status"] = "awaiting_return"
    return label


def mark_return_received(ctx, acting_moderator_id: str, dispute_id: str) -> dict:
    _acting_moderator(ctx, acting_moderator_id, "disputes", RULE_DISPUTES_TEAM)
    dispute = _dispute(ctx, dispute_id)
    if dispute["status"] != "awaiting_return":
        raise ConflictError(f"dispute {dispute_id} is {dispute['status']}; no return is expected")
    label = ctx.db.fetch_one(
        "SELECT label_id, status FROM shipping_labels WHERE order_id = ? AND direction = 'return' AND status <> 'void' "
        "ORDER BY label_id DESC", (dispute["order_id"],))
    if label is None:
        raise ConflictError(f"dispute {dispute_id} has no return label; the return was never shipped")
    if label["status"] == "delivered":
        raise ConflictError(f"return label {label['label_id']} is already marked delivered")
    ctx.db.execute("UPDATE shipping_labels SET status = 'delivered' WHERE label_id = ?", (label["label_id"],))
    return {"dispute_id": dispute_id, "label_id": label["label_id"], "label_status": "delivered",
            "order_id": dispute["order_id"]}


def resolve_dispute(ctx, acting_moderator_id: str, dispute_id: str, resolution: str,
                    refund_pence: int | None = None) -> dict:
    require_choice(resolution, ("full_refund", "partial_refund", "reject"), "resolution")
    if (resolution == "partial_refund") != (refund_pence is not None):
        raise InvalidArgumentError("refund_pence is required for partial_refund and must be omitted otherwise")
    _acting_moderator(ctx, acting_moderator_id, "disputes", RULE_DISPUTES_TEAM)
    dispute = _dispute(ctx, dispute_id)
    if dispute["status"] not in ("open", "awaiting_return"):
        raise ConflictError(f"dispute {dispute_id} is already {dispute['status']}")
    order = _order(ctx, dispute["order_id"])
    payment = _escrow(ctx, order["order_id"]) if resolution != "reject" else None
    if resolution == "full_refund":
        if dispute["reason"] != "not_received":
            returned = ctx.db.fetch_one(
                "SELECT label_id FROM shipping_labels WHERE order_id = ? AND direction = 'return' AND status = 'delivered'",
                (order["order_id"],))
            if returned is None:
                raise ConflictError("a full refund needs the item back: request_return, then mark_return_received")
        refund = payment["amount_pence"]
        ctx.db.execute("UPDATE escrow_payments SET status = 'refunded', refunded_pence = ?, settled_on = ? "
                       "WHERE payment_id = ?", (refund, ctx.today, payment["payment_id"]))
        _refund_buyer(ctx, payment, order["buyer_id"], refund)
        ctx.db.execute("UPDATE orders SET status = 'refunded' WHERE order_id = ?", (order["order_id"],))
        ctx.db.execute("UPDATE listings SET status = 'withdrawn' WHERE listing_id = ?", (order["listing_id"],))
        status = "resolved_refund"
    elif resolution == "partial_refund":
        if dispute["status"] != "open":
            raise ConflictError("a return is under way; resolve with full_refund once it is received")
        if refund_pence < 1 or refund_pence > order["item_price_pence"]:
            raise InvalidArgumentError(f"refund_pence must be between 1 and the item price {order['item_price_pence']}")
        refund = refund_pence
        payout = order["item_price_pence"] + order["shipping_pence"] - refund
        ctx.db.execute("UPDATE escrow_payments SET status = 'partially_refunded', refunded_pence = ?, released_pence = ?, "
                       "settled_on = ? WHERE payment_id = ?", (refund, payout, ctx.today, payment["payment_id"]))
        _refund_buyer(ctx, payment, order["buyer_id"], refund)
        ctx.db.execute("UPDATE members SET wallet_balance_pence = wallet_balance_pence + ? WHERE member_id = ?",
                       (payout, order["seller_id"]))
        ctx.db.execute("UPDATE orders SET status = 'completed', completed_on = ? WHERE order_id = ?",
                       (ctx.today, order["order_id"]))
        ctx.db.execute("UPDATE listings SET status = 'sold' WHERE listing_id = ?", (order["listing_id"],))
        status = "resolved_partial"
    else:
        if dispute["status"] != "open":
            raise ConflictError("a return is under way; resolve with full_refund once it is received")
        refund = 0
        back = "delivered" if order["delivered_on"] is not None else "shipped"
        ctx.db.execute("UPDATE orders SET status = ? WHERE order_id = ?", (back, order["order_id"]))
        status = "rejected"
    ctx.db.execute("UPDATE disputes SET status = ?, refund_pence = ?, resolved_on = ? WHERE dispute_id = ?",
                   (status, refund, ctx.today, dispute_id))
    after = ctx.db.fetch_one("SELECT status FROM orders WHERE order_id = ?", (order["order_id"],))["status"]
    return {"dispute_id": dispute_id, "status": status, "refund_pence": refund, "order_id": order["order_id"],
            "order_status": after}


# -- reviews ------------------------------------------------------------------------------------

def leave_review(ctx, acting_member_id: str, order_id: str, stars: int, comment: str) -> dict:
    if stars < 1 or stars > 5:
        raise InvalidArgumentError("stars must be between 1 and 5")
    _acting_member(ctx, acting_member_id)
    reviewer_id = acting_member_id
    order = _order(ctx, order_id)
    require_permission(reviewer_id in (order["buyer_id"], order["seller_id"]), RULE_REVIEW)
    if order["status"] != "completed":
        raise ConflictError(f"order {order_id} is {order['status']}; reviews open once the order is completed")
    if order["completed_on"] is None:
        raise ConflictError(f"order {order_id} has no completion date on record; its review window cannot be dated")
    if _days_between(order["completed_on"], ctx.today) > REVIEW_WINDOW_DAYS:
        raise ConflictError(f"the {REVIEW_WINDOW_DAYS}-day review window of order {order_id} has closed")
    done = ctx.db.fetch_one("SELECT review_id FROM reviews WHERE order_id = ? AND reviewer_id = ?", (order_id, reviewer_id))
    if done is not None:
        raise ConflictError(f"member {reviewer_id} already reviewed order {order_id} ({done['review_id']})")
    reviewee = order["seller_id"] if reviewer_id == order["buyer_id"] else order["buyer_id"]
    review_id = ctx.new_id("REV")
    ctx.db.execute(
        "INSERT INTO reviews (review_id, order_id, reviewer_id, reviewee_id, stars, comment, created_on) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)", (review_id, order_id, reviewer_id, reviewee, stars, comment, ctx.today))
    ctx.db.execute("UPDATE members SET rating_total = rating_total + ?, rating_count = rating_count + 1 "
                   "WHERE member_id = ?", (stars, reviewee))
    row = ctx.db.fetch_one("SELECT rating_total, rating_count FROM members WHERE member_id = ?", (reviewee,))
    return {"review_id": review_id, "order_id": order_id, "reviewee_id": reviewee, "stars": stars,
            "rating_average": round(row["rating_total"] / row["rating_count"], 2), "rating_count": row["rating_count"]}


def list_member_reviews(ctx, member_id: str, min_stars: int | None = None, max_stars: int | None = None,
                        limit: int = 20, offset: int = 0) -> dict:
    require_page(limit, offset)
    _member(ctx, member_id)
    rows = ctx.db.fetch_all(
        "SELECT review_id, order_id, reviewer_id, reviewee_id, stars, comment, created_on FROM reviews "
        "WHERE reviewee_id = ? AND (? IS NULL OR stars >= ?) AND (? IS NULL OR stars <= ?) "
        "ORDER BY created_on DESC, review_id", (member_id, min_stars, min_stars, max_stars, max_stars))
    return paginate(rows, limit, offset)


# -- saved searches -----------------------------------------------------------------------------

def create_saved_search(ctx, acting_member_id: str, member_id: str, query: str, category: str | None = None,
                        max_price_pence: int | None = None) -> dict:
    if len(query.strip()) < 2:
        raise InvalidArgumentError("query must have at least 2 characters")
    optional_choice(category, CATEGORIES, "category")
    if max_price_pence is not None and max_price_pence < 1:
        raise InvalidArgumentError("max_price_pence must be positive")
    _acting_member(ctx, acting_member_id)
    require_permission(member_id == acting_member_id, RULE_SAVE_SEARCH)
    _active_member(ctx, member_id, "member")
    count = ctx.db.fetch_one("SELECT count(*) AS n FROM saved_searches WHERE member_id = ?", (member_id,))["n"]
    if count >= MAX_SAVED_SEARCHES:
        raise ConflictError(f"member {member_id} already has {MAX_SAVED_SEARCHES} saved searches; delete one first")
    same = ctx.db.fetch_one(
        "SELECT search_id FROM saved_searches WHERE member_id = ? AND lower(query) = lower(?) AND category IS ?",
        (member_id, query, category))
    if same is not None:
        raise ConflictError(f"member {member_id} already saved this search as {same['search_id']}")
    search_id = ctx.new_id("SRC")
    ctx.db.execute("INSERT INTO saved_searches (search_id, member_id, query, category, max_price_pence, created_on) "
                   "VALUES (?, ?, ?, ?, ?, ?)", (search_id, member_id, query, category, max_price_pence, ctx.today))
    return {"search_id": search_id, "member_id": member_id, "saved_count": count + 1}


def list_saved_searches(ctx, acting_member_id: str, member_id: str) -> dict:
    _acting_member(ctx, acting_member_id)
    _member(ctx, member_id)
    require_permission(member_id == acting_member_id, RULE_LIST_SEARCHES)
    rows = ctx.db.fetch_all(
        "SELECT search_id, member_id, query, category, max_price_pence, created_on FROM saved_searches "
        "WHERE member_id = ? ORDER BY search_id", (member_id,))
    return {"items": rows, "total": len(rows)}


def delete_saved_search(ctx, acting_member_id: str, search_id: str) -> dict:
    _acting_member(ctx, acting_member_id)
    row = ctx.db.fetch_one("SELECT search_id, member_id FROM saved_searches WHERE search_id = ?", (search_id,))
    if row is None:
        raise NotFoundError(f"no saved search {search_id}")
    require_permission(row["member_id"] == acting_member_id, RULE_DELETE_SEARCH)
    ctx.db.execute("DELETE FROM saved_searches WHERE search_id = ?", (search_id,))
    return {"search_id": search_id, "deleted": True}


def run_saved_search(ctx, acting_member_id: str, search_id: str, limit: int = 20, offset: int = 0) -> dict:
    require_page(limit, offset)
    _acting_member(ctx, acting_member_id)
    saved = ctx.db.fetch_one("SELECT search_id, member_id, query, category, max_price_pence FROM saved_searches "
                             "WHERE search_id = ?", (search_id,))
    if saved is None:
        raise NotFoundError(f"no saved search {search_id}")
    require_permission(saved["member_id"] == acting_member_id, RULE_RUN_SEARCH)
    rows = ctx.db.fetch_all(
        "SELECT listing_id, seller_id, title, category, item_condition, price_pence, published_on FROM listings "
        "WHERE status = 'active' AND seller_id <> ? AND title LIKE '%' || ? || '%' "
        "AND (? IS NULL OR category = ?) AND (? IS NULL OR price_pence <= ?) ORDER BY price_pence, listing_id",
        (saved["member_id"], saved["query"], saved["category"], saved["category"], saved["max_price_pence"],
         saved["max_price_pence"]))
    return {"search_id": search_id, "items": rows[offset:offset + limit], "total": len(rows)}


# -- reports ------------------------------------------------------------------------------------

def report_listing(ctx, acting_member_id: str, listing_id: str, reason: str, details: str) -> dict:
    require_choice(reason, REPORT_REASONS, "reason")
    _acting_member(ctx, acting_member_id)
    reporter_id = acting_member_id
    listing = _listing(ctx, listing_id)
    require_permission(reporter_id != listing["seller_id"], RULE_REPORT)
    _active_member(ctx, reporter_id, "reporter")
    if listing["status"] not in ("active", "reserved"):
        raise ConflictError(f"listing {listing_id} is {listing['status']}; only live listings can be reported")
    open_report = ctx.db.fetch_one(
        "SELECT report_id FROM reports WHERE listing_id = ? AND reporter_id = ? AND status = 'open'",
        (listing_id, reporter_id))
    if open_report is not None:
        raise ConflictError(f"this member already has open report {open_report['report_id']} on the listing")
    report_id = ctx.new_id("RPT")
    ctx.db.execute(
        "INSERT INTO reports (report_id, listing_id, reporter_id, reason, details, status, created_on, reviewed_on, "
        "review_note) VALUES (?, ?, ?, ?, ?, 'open', ?, NULL, NULL)",
        (report_id, listing_id, reporter_id, reason, details, ctx.today))
    return {"report_id": report_id, "listing_id": listing_id, "status": "open"}


def find_reports(ctx, acting_moderator_id: str, status: str | None = None, reason: str | None = None,
                 listing_id: str | None = None, limit: int = 20, offset: int = 0) -> dict:
    require_page(limit, offset)
    optional_choice(status, REPORT_STATUSES, "status")
    optional_choice(reason, REPORT_REASONS, "reason")
    _acting_moderator(ctx, acting_moderator_id, "trust_safety", RULE_TRUST_TEAM)
    rows = ctx.db.fetch_all(
        "SELECT r.report_id, r.listing_id, l.title, l.status AS listing_status, r.reporter_id, r.reason, r.status, "
        "r.created_on, r.reviewed_on FROM reports r JOIN listings l ON l.listing_id = r.listing_id "
        "WHERE (? IS NULL OR r.status = ?) AND (? IS NULL OR r.reason = ?) AND (? IS NULL OR r.listing_id = ?) "
        "ORDER BY r.report_id", (status, status, reason, reason, listing_id, listing_id))
    return paginate(rows, limit, offset)


def review_report(ctx, acting_moderator_id: str, report_id: str, decision: str, note: str) -> dict:
    require_choice(decision, ("upheld", "dismissed"), "decision")
    _acting_moderator(ctx, acting_moderator_id, "trust_safety", RULE_TRUST_TEAM)
    report = ctx.db.fetch_one("SELECT report_id, listing_id, reason, status FROM reports WHERE report_id = ?", (report_id,))
    if report is None:
        raise NotFoundError(f"no report {report_id}")
    if report["status"] != "open":
        raise ConflictError(f"report {report_id} was already {report['status']}")
    listing = _listing(ctx, report["listing_id"])
    removed = False
    declined = 0
    also_closed = 0
    if decision == "upheld" and report["reason"] in REMOVING_REASONS:
        if listing["status"] == "reserved":
            raise ConflictError(f"listing {listing['listing_id']} has an order in progress; cancel the order before removing it")
        ctx.db.execute("UPDATE listings SET status = 'removed' WHERE listing_id = ?", (listing["listing_id"],))
        declined = _decline_pending(ctx, listing["listing_id"])
        also_closed = ctx.db.execute(
            "UPDATE reports SET status = 'upheld', reviewed_on = ?, review_note = ? WHERE listing_id = ? "
            "AND status = 'open' AND report_id <> ?", (ctx.today, note, listing["listing_id"], report_id))
        removed = True
    ctx.db.execute("UPDATE reports SET status = ?, reviewed_on = ?, review_note = ? WHERE report_id = ?",
                   (decision, ctx.today, note, report_id))
    return {"report_id": report_id, "status": decision, "listing_id": listing["listing_id"],
            "listing_removed": removed, "offers_declined": declined, "other_reports_closed": also_closed}
