-- Second-hand marketplace: members sell used items to each other. Money is GBP pence.
CREATE TABLE members (
    member_id TEXT PRIMARY KEY CHECK (member_id GLOB 'MEM-[0-9][0-9][0-9][0-9][0-9]'),
    name TEXT NOT NULL CHECK (length(name) > 0),
    email TEXT NOT NULL UNIQUE,
    date_of_birth TEXT NOT NULL CHECK (date_of_birth GLOB '[12][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]'),
    phone TEXT NOT NULL UNIQUE CHECK (phone GLOB '07[0-9][0-9][0-9] [0-9][0-9][0-9][0-9][0-9][0-9]'),
    city TEXT NOT NULL,
    postcode TEXT NOT NULL,
    joined_on TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
    id_verified INTEGER NOT NULL CHECK (id_verified IN (0, 1)),
    rating_total INTEGER NOT NULL CHECK (rating_total >= 0),
    rating_count INTEGER NOT NULL CHECK (rating_count >= 0 AND rating_total <= 5 * rating_count AND rating_total >= rating_count),
    wallet_balance_pence INTEGER NOT NULL CHECK (wallet_balance_pence >= 0)
) STRICT;

CREATE TABLE listings (
    listing_id TEXT PRIMARY KEY CHECK (listing_id GLOB 'LST-[0-9][0-9][0-9][0-9][0-9]'),
    seller_id TEXT NOT NULL REFERENCES members(member_id),
    title TEXT NOT NULL CHECK (length(title) BETWEEN 3 AND 80),
    description TEXT NOT NULL,
    category TEXT NOT NULL CHECK (category IN ('electronics', 'clothing', 'furniture', 'books', 'sports', 'toys', 'music', 'home')),
    item_condition TEXT NOT NULL CHECK (item_condition IN ('new_with_tags', 'like_new', 'good', 'fair', 'for_parts')),
    price_pence INTEGER NOT NULL CHECK (price_pence BETWEEN 100 AND 500000),
    accepts_offers INTEGER NOT NULL CHECK (accepts_offers IN (0, 1)),
    weight_grams INTEGER NOT NULL CHECK (weight_grams BETWEEN 1 AND 30000),
    status TEXT NOT NULL CHECK (status IN ('draft', 'active', 'reserved', 'sold', 'withdrawn', 'removed')),
    created_on TEXT NOT NULL,
    published_on TEXT
) STRICT;

CREATE TABLE listing_photos (
    photo_id TEXT PRIMARY KEY CHECK (photo_id GLOB 'PHO-[0-9][0-9][0-9][0-9][0-9]'),
    listing_id TEXT NOT NULL REFERENCES listings(listing_id),
    url TEXT NOT NULL CHECK (url LIKE 'https://%'),
    position INTEGER NOT NULL CHECK (position BETWEEN 1 AND 8),
    caption TEXT,
    UNIQUE (listing_id, position)
) STRICT;

CREATE TABLE offers (
    offer_id TEXT PRIMARY KEY CHECK (offer_id GLOB 'OFR-[0-9][0-9][0-9][0-9][0-9]'),
    listing_id TEXT NOT NULL REFERENCES listings(listing_id),
    buyer_id TEXT NOT NULL REFERENCES members(member_id),
    made_by TEXT NOT NULL CHECK (made_by IN ('buyer', 'seller')),
    parent_offer_id TEXT REFERENCES offers(offer_id),
    amount_pence INTEGER NOT NULL CHECK (amount_pence > 0),
    status TEXT NOT NULL CHECK (status IN ('pending', 'countered', 'accepted', 'declined', 'expired')),
    message TEXT,
    created_on TEXT NOT NULL,
    expires_on TEXT NOT NULL CHECK (expires_on >= created_on)
) STRICT;

CREATE TABLE orders (
    order_id TEXT PRIMARY KEY CHECK (order_id GLOB 'ORD-[0-9][0-9][0-9][0-9][0-9]'),
    listing_id TEXT NOT NULL REFERENCES listings(listing_id),
    buyer_id TEXT NOT NULL REFERENCES members(member_id),
    seller_id TEXT NOT NULL REFERENCES members(member_id),
    offer_id TEXT REFERENCES offers(offer_id),
    item_price_pence INTEGER NOT NULL CHECK (item_price_pence > 0),
    shipping_pence INTEGER NOT NULL CHECK (shipping_pence >= 0),
    protection_fee_pence INTEGER NOT NULL CHECK (protection_fee_pence >= 0),
    total_pence INTEGER NOT NULL CHECK (total_pence = item_price_pence + shipping_pence + protection_fee_pence),
    status TEXT NOT NULL CHECK (status IN ('awaiting_payment', 'paid', 'shipped', 'delivered', 'disputed', 'completed', 'cancelled', 'refunded')),
    created_on TEXT NOT NULL,
    paid_on TEXT,
    shipped_on TEXT,
    delivered_on TEXT,
    completed_on TEXT,
    CHECK (buyer_id <> seller_id)
) STRICT;

CREATE TABLE escrow_payments (
    payment_id TEXT PRIMARY KEY CHECK (payment_id GLOB 'PAY-[0-9][0-9][0-9][0-9][0-9]'),
    order_id TEXT NOT NULL UNIQUE REFERENCES orders(order_id),
    method TEXT NOT NULL CHECK (method IN ('card', 'wallet', 'bank_transfer')),
    amount_pence INTEGER NOT NULL CHECK (amount_pence > 0),
    refunded_pence INTEGER NOT NULL CHECK (refunded_pence >= 0 AND refunded_pence <= amount_pence),
    released_pence INTEGER NOT NULL CHECK (released_pence >= 0 AND released_pence + refunded_pence <= amount_pence),
    status TEXT NOT NULL CHECK (status IN ('held', 'released', 'refunded', 'partially_refunded')),
    held_on TEXT NOT NULL,
    settled_on TEXT
) STRICT;

CREATE TABLE shipping_labels (
    label_id TEXT PRIMARY KEY CHECK (label_id GLOB 'LBL-[0-9][0-9][0-9][0-9][0-9]'),
    order_id TEXT NOT NULL REFERENCES orders(order_id),
    direction TEXT NOT NULL CHECK (direction IN ('outbound', 'return')),
    carrier TEXT NOT NULL CHECK (carrier IN ('royal_mail', 'evri', 'dpd', 'inpost')),
    tracking_number TEXT NOT NULL UNIQUE,
    weight_grams INTEGER NOT NULL CHECK (weight_grams > 0),
    cost_pence INTEGER NOT NULL CHECK (cost_pence >= 0),
    status TEXT NOT NULL CHECK (status IN ('created', 'in_transit', 'delivered', 'void')),
    created_on TEXT NOT NULL
) STRICT;

CREATE TABLE disputes (
    dispute_id TEXT PRIMARY KEY CHECK (dispute_id GLOB 'DSP-[0-9][0-9][0-9][0-9][0-9]'),
    order_id TEXT NOT NULL REFERENCES orders(order_id),
    opened_by TEXT NOT NULL REFERENCES members(member_id),
    reason TEXT NOT NULL CHECK (reason IN ('not_received', 'not_as_described', 'damaged', 'counterfeit')),
    description TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'awaiting_return', 'resolved_refund', 'resolved_partial', 'rejected')),
    refund_pence INTEGER NOT NULL CHECK (refund_pence >= 0),
    opened_on TEXT NOT NULL,
    resolved_on TEXT
) STRICT;

CREATE TABLE reviews (
    review_id TEXT PRIMARY KEY CHECK (review_id GLOB 'REV-[0-9][0-9][0-9][0-9][0-9]'),
    order_id TEXT NOT NULL REFERENCES orders(order_id),
    reviewer_id TEXT NOT NULL REFERENCES members(member_id),
    reviewee_id TEXT NOT NULL REFERENCES members(member_id),
    stars INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5),
    comment TEXT NOT NULL,
    created_on TEXT NOT NULL,
    UNIQUE (order_id, reviewer_id),
    CHECK (reviewer_id <> reviewee_id)
) STRICT;

CREATE TABLE saved_searches (
    search_id TEXT PRIMARY KEY CHECK (search_id GLOB 'SRC-[0-9][0-9][0-9][0-9][0-9]'),
    member_id TEXT NOT NULL REFERENCES members(member_id),
    query TEXT NOT NULL CHECK (length(query) >= 2),
    category TEXT CHECK (category IS NULL OR category IN ('electronics', 'clothing', 'furniture', 'books', 'sports', 'toys', 'music', 'home')),
    max_price_pence INTEGER CHECK (max_price_pence IS NULL OR max_price_pence > 0),
    created_on TEXT NOT NULL
) STRICT;

CREATE TABLE reports (
    report_id TEXT PRIMARY KEY CHECK (report_id GLOB 'RPT-[0-9][0-9][0-9][0-9][0-9]'),
    listing_id TEXT NOT NULL REFERENCES listings(listing_id),
    reporter_id TEXT NOT NULL REFERENCES members(member_id),
    reason TEXT NOT NULL CHECK (reason IN ('prohibited_item', 'counterfeit', 'scam', 'offensive', 'wrong_category')),
    details TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'upheld', 'dismissed')),
    created_on TEXT NOT NULL,
    reviewed_on TEXT,
    review_note TEXT
) STRICT;

CREATE TABLE moderators (
    moderator_id TEXT PRIMARY KEY CHECK (moderator_id GLOB 'MOD-[0-9][0-9][0-9][0-9][0-9]'),
    name TEXT NOT NULL CHECK (length(name) > 0),
    email TEXT NOT NULL UNIQUE CHECK (email LIKE '%@preloved-market.co.uk'),
    team TEXT NOT NULL CHECK (team IN ('trust_safety', 'disputes')),
    started_on TEXT NOT NULL
) STRICT;
