-- Express logistics: customers ship parcels between depots of a European courier network.
-- Money is EUR cents (INTEGER), weights kg (REAL), dimensions cm (INTEGER), dates YYYY-MM-DD,
-- timestamps YYYY-MM-DDTHH:MM:SS.

CREATE TABLE customers (
    customer_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    company TEXT,
    email TEXT NOT NULL,
    phone TEXT NOT NULL,
    account_type TEXT NOT NULL CHECK (account_type IN ('personal', 'business')),
    status TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
    credit_limit_cents INTEGER NOT NULL CHECK (credit_limit_cents >= 0),
    account_balance_cents INTEGER NOT NULL CHECK (account_balance_cents >= 0),
    created_on TEXT NOT NULL,
    CHECK (account_type = 'business' OR (credit_limit_cents = 0 AND account_balance_cents = 0))
) STRICT;

CREATE TABLE depots (
    depot_id TEXT PRIMARY KEY,
    code TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    city TEXT NOT NULL,
    country TEXT NOT NULL CHECK (length(country) = 2),
    status TEXT NOT NULL CHECK (status IN ('open', 'closed')),
    daily_capacity INTEGER NOT NULL CHECK (daily_capacity > 0)
) STRICT;

CREATE TABLE addresses (
    address_id TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers(customer_id),
    label TEXT NOT NULL,
    line1 TEXT NOT NULL,
    city TEXT NOT NULL,
    postal_code TEXT NOT NULL,
    country TEXT NOT NULL CHECK (length(country) = 2),
    depot_id TEXT NOT NULL REFERENCES depots(depot_id),
    is_residential INTEGER NOT NULL CHECK (is_residential IN (0, 1)),
    status TEXT NOT NULL CHECK (status IN ('active', 'archived'))
) STRICT;

CREATE TABLE routes (
    route_id TEXT PRIMARY KEY,
    origin_depot_id TEXT NOT NULL REFERENCES depots(depot_id),
    destination_depot_id TEXT NOT NULL REFERENCES depots(depot_id),
    service_level TEXT NOT NULL CHECK (service_level IN ('economy', 'standard', 'express')),
    transit_days INTEGER NOT NULL CHECK (transit_days BETWEEN 1 AND 10),
    base_cents INTEGER NOT NULL CHECK (base_cents > 0),
    per_kg_cents INTEGER NOT NULL CHECK (per_kg_cents >= 0),
    status TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
    UNIQUE (origin_depot_id, destination_depot_id, service_level)
) STRICT;

CREATE TABLE couriers (
    courier_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    depot_id TEXT NOT NULL REFERENCES depots(depot_id),
    vehicle_type TEXT NOT NULL CHECK (vehicle_type IN ('cargo_bike', 'van', 'truck')),
    max_load_kg REAL NOT NULL CHECK (max_load_kg > 0),
    phone TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('available', 'on_route', 'off_duty'))
) STRICT;

CREATE TABLE rate_quotes (
    quote_id TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers(customer_id),
    origin_address_id TEXT NOT NULL REFERENCES addresses(address_id),
    destination_address_id TEXT NOT NULL REFERENCES addresses(address_id),
    route_id TEXT NOT NULL REFERENCES routes(route_id),
    service_level TEXT NOT NULL CHECK (service_level IN ('economy', 'standard', 'express')),
    weight_kg REAL NOT NULL CHECK (weight_kg > 0 AND weight_kg <= 70),
    length_cm INTEGER NOT NULL CHECK (length_cm BETWEEN 1 AND 175),
    width_cm INTEGER NOT NULL CHECK (width_cm BETWEEN 1 AND 175),
    height_cm INTEGER NOT NULL CHECK (height_cm BETWEEN 1 AND 175),
    chargeable_weight_kg INTEGER NOT NULL CHECK (chargeable_weight_kg >= 1),
    price_cents INTEGER NOT NULL CHECK (price_cents > 0),
    created_on TEXT NOT NULL,
    valid_until TEXT NOT NULL CHECK (valid_until >= created_on),
    status TEXT NOT NULL CHECK (status IN ('open', 'used'))
) STRICT;

CREATE TABLE shipments (
    shipment_id TEXT PRIMARY KEY,
    quote_id TEXT NOT NULL UNIQUE REFERENCES rate_quotes(quote_id),
    sender_id TEXT NOT NULL REFERENCES customers(customer_id),
    recipient_id TEXT NOT NULL REFERENCES customers(customer_id),
    origin_address_id TEXT NOT NULL REFERENCES addresses(address_id),
    destination_address_id TEXT NOT NULL REFERENCES addresses(address_id),
    route_id TEXT NOT NULL REFERENCES routes(route_id),
    origin_depot_id TEXT NOT NULL REFERENCES depots(depot_id),
    destination_depot_id TEXT NOT NULL REFERENCES depots(depot_id),
    current_depot_id TEXT REFERENCES depots(depot_id),
    service_level TEXT NOT NULL CHECK (service_level IN ('economy', 'standard', 'express')),
    status TEXT NOT NULL CHECK (status IN ('awaiting_payment', 'booked', 'picked_up', 'in_transit', 'held_customs',
        'out_for_delivery', 'delivered', 'return_to_sender', 'lost', 'cancelled')),
    customs_required INTEGER NOT NULL CHECK (customs_required IN (0, 1)),
    price_cents INTEGER NOT NULL CHECK (price_cents > 0),
    insured_value_cents INTEGER NOT NULL CHECK (insured_value_cents >= 0),
    insurance_premium_cents INTEGER NOT NULL CHECK (insurance_premium_cents >= 0),
    paid_cents INTEGER NOT NULL CHECK (paid_cents >= 0),
    payment_method TEXT CHECK (payment_method IN ('card', 'account')),
    refunded_cents INTEGER NOT NULL CHECK (refunded_cents >= 0 AND refunded_cents <= paid_cents),
    delivery_attempts INTEGER NOT NULL CHECK (delivery_attempts BETWEEN 0 AND 3),
    delivery_courier_id TEXT REFERENCES couriers(courier_id),
    created_on TEXT NOT NULL,
    promised_by TEXT NOT NULL CHECK (promised_by > created_on),
    delivered_on TEXT,
    reference TEXT,
    CHECK ((status = 'delivered') = (delivered_on IS NOT NULL)),
    CHECK ((paid_cents > 0) = (payment_method IS NOT NULL))
) STRICT;

CREATE TABLE parcels (
    parcel_id TEXT PRIMARY KEY,
    shipment_id TEXT NOT NULL REFERENCES shipments(shipment_id),
    weight_kg REAL NOT NULL CHECK (weight_kg > 0 AND weight_kg <= 70),
    length_cm INTEGER NOT NULL CHECK (length_cm BETWEEN 1 AND 175),
    width_cm INTEGER NOT NULL CHECK (width_cm BETWEEN 1 AND 175),
    height_cm INTEGER NOT NULL CHECK (height_cm BETWEEN 1 AND 175),
    contents TEXT NOT NULL,
    declared_value_cents INTEGER NOT NULL CHECK (declared_value_cents >= 0)
) STRICT;

CREATE TABLE tracking_events (
    event_id TEXT PRIMARY KEY,
    shipment_id TEXT NOT NULL REFERENCES shipments(shipment_id),
    event_type TEXT NOT NULL CHECK (event_type IN ('created', 'booked', 'picked_up', 'arrived_depot', 'departed_depot',
        'held_customs', 'customs_cleared', 'out_for_delivery', 'delivery_failed', 'delivered', 'redirected',
        'returning_to_sender', 'lost', 'cancelled')),
    depot_id TEXT REFERENCES depots(depot_id),
    occurred_at TEXT NOT NULL,
    note TEXT
) STRICT;

CREATE TABLE pickups (
    pickup_id TEXT PRIMARY KEY,
    shipment_id TEXT NOT NULL REFERENCES shipments(shipment_id),
    address_id TEXT NOT NULL REFERENCES addresses(address_id),
    courier_id TEXT REFERENCES couriers(courier_id),
    pickup_date TEXT NOT NULL,
    time_window TEXT NOT NULL CHECK (time_window IN ('morning', 'afternoon', 'evening')),
    status TEXT NOT NULL CHECK (status IN ('scheduled', 'completed', 'cancelled')),
    completed_at TEXT,
    note TEXT,
    CHECK ((status = 'completed') = (completed_at IS NOT NULL)),
    CHECK (status <> 'completed' OR courier_id IS NOT NULL)
) STRICT;

CREATE TABLE customs_declarations (
    declaration_id TEXT PRIMARY KEY,
    shipment_id TEXT NOT NULL REFERENCES shipments(shipment_id),
    contents_description TEXT NOT NULL,
    hs_code TEXT NOT NULL CHECK (length(hs_code) = 6),
    declared_value_cents INTEGER NOT NULL CHECK (declared_value_cents > 0),
    incoterm TEXT NOT NULL CHECK (incoterm IN ('DAP', 'DDP')),
    duty_cents INTEGER NOT NULL CHECK (duty_cents >= 0),
    status TEXT NOT NULL CHECK (status IN ('draft', 'submitted', 'cleared', 'rejected')),
    created_on TEXT NOT NULL,
    submitted_on TEXT,
    cleared_on TEXT
) STRICT;

CREATE TABLE claims (
    claim_id TEXT PRIMARY KEY,
    shipment_id TEXT NOT NULL REFERENCES shipments(shipment_id),
    customer_id TEXT NOT NULL REFERENCES customers(customer_id),
    claim_type TEXT NOT NULL CHECK (claim_type IN ('damage', 'loss', 'delay')),
    amount_claimed_cents INTEGER NOT NULL CHECK (amount_claimed_cents > 0),
    amount_approved_cents INTEGER CHECK (amount_approved_cents >= 0 AND amount_approved_cents <= amount_claimed_cents),
    status TEXT NOT NULL CHECK (status IN ('open', 'approved', 'rejected', 'paid')),
    description TEXT NOT NULL,
    filed_on TEXT NOT NULL,
    resolved_on TEXT,
    resolution_note TEXT,
    CHECK ((status IN ('approved', 'paid')) = (amount_approved_cents IS NOT NULL))
) STRICT;

CREATE TABLE staff (
    staff_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    phone TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('dispatcher', 'customs_officer', 'claims_handler')),
    depot_id TEXT NOT NULL REFERENCES depots(depot_id)
) STRICT;
