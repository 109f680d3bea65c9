-- Stock trading: investors hold cash and margin brokerage accounts, trade US-listed stocks and ETFs
-- at the prices of a fixed price table, receive dividends and split adjustments.
-- Money is USD cents (INTEGER), quantities are whole shares, dates YYYY-MM-DD,
-- timestamps YYYY-MM-DDTHH:MM:SS.

CREATE TABLE investors (
    investor_id TEXT PRIMARY KEY,
    full_name TEXT NOT NULL,
    date_of_birth TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    phone TEXT NOT NULL,
    country TEXT NOT NULL CHECK (length(country) = 2),
    risk_profile TEXT NOT NULL CHECK (risk_profile IN ('conservative', 'balanced', 'aggressive')),
    kyc_status TEXT NOT NULL CHECK (kyc_status IN ('verified', 'pending', 'rejected')),
    joined_on TEXT NOT NULL
) STRICT;

CREATE TABLE staff (
    staff_id TEXT PRIMARY KEY,
    full_name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    desk TEXT NOT NULL CHECK (desk IN ('operations', 'client_support', 'compliance')),
    office TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'on_leave')),
    hired_on TEXT NOT NULL
) STRICT;

CREATE TABLE accounts (
    account_id TEXT PRIMARY KEY,
    investor_id TEXT NOT NULL REFERENCES investors(investor_id),
    account_type TEXT NOT NULL CHECK (account_type IN ('cash', 'margin')),
    nickname TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'frozen', 'closed')),
    cash_cents INTEGER NOT NULL,
    reserved_cents INTEGER NOT NULL CHECK (reserved_cents >= 0),
    margin_limit_cents INTEGER NOT NULL CHECK (margin_limit_cents >= 0),
    opened_on TEXT NOT NULL,
    closed_on TEXT,
    CHECK (account_type = 'margin' OR margin_limit_cents = 0),
    CHECK (cash_cents >= -margin_limit_cents),
    CHECK ((status = 'closed') = (closed_on IS NOT NULL))
) STRICT;

CREATE TABLE instruments (
    instrument_id TEXT PRIMARY KEY,
    symbol TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    asset_type TEXT NOT NULL CHECK (asset_type IN ('stock', 'etf')),
    exchange TEXT NOT NULL CHECK (exchange IN ('NYSE', 'NASDAQ', 'ARCA')),
    sector TEXT NOT NULL,
    price_cents INTEGER NOT NULL CHECK (price_cents > 0),
    prev_close_cents INTEGER NOT NULL CHECK (prev_close_cents > 0),
    status TEXT NOT NULL CHECK (status IN ('active', 'halted', 'delisted'))
) STRICT;

CREATE TABLE positions (
    position_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(account_id),
    instrument_id TEXT NOT NULL REFERENCES instruments(instrument_id),
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    reserved_quantity INTEGER NOT NULL CHECK (reserved_quantity >= 0 AND reserved_quantity <= quantity),
    cost_basis_cents INTEGER NOT NULL CHECK (cost_basis_cents >= 0),
    opened_on TEXT NOT NULL,
    UNIQUE (account_id, instrument_id)
) STRICT;

CREATE TABLE orders (
    order_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(account_id),
    instrument_id TEXT NOT NULL REFERENCES instruments(instrument_id),
    side TEXT NOT NULL CHECK (side IN ('buy', 'sell')),
    order_type TEXT NOT NULL CHECK (order_type IN ('market', 'limit', 'stop')),
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    limit_price_cents INTEGER CHECK (limit_price_cents > 0),
    stop_price_cents INTEGER CHECK (stop_price_cents > 0),
    time_in_force TEXT NOT NULL CHECK (time_in_force IN ('day', 'gtc')),
    status TEXT NOT NULL CHECK (status IN ('open', 'filled', 'cancelled', 'expired')),
    reserved_cents INTEGER NOT NULL CHECK (reserved_cents >= 0),
    placed_at TEXT NOT NULL,
    closed_at TEXT,
    note TEXT,
    CHECK ((order_type = 'limit') = (limit_price_cents IS NOT NULL)),
    CHECK ((order_type = 'stop') = (stop_price_cents IS NOT NULL)),
    CHECK ((status = 'open') = (closed_at IS NULL)),
    CHECK (status = 'open' OR reserved_cents = 0),
    CHECK (side = 'buy' OR reserved_cents = 0)
) STRICT;

CREATE TABLE executions (
    execution_id TEXT PRIMARY KEY,
    order_id TEXT NOT NULL REFERENCES orders(order_id),
    account_id TEXT NOT NULL REFERENCES accounts(account_id),
    instrument_id TEXT NOT NULL REFERENCES instruments(instrument_id),
    side TEXT NOT NULL CHECK (side IN ('buy', 'sell')),
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    price_cents INTEGER NOT NULL CHECK (price_cents > 0),
    commission_cents INTEGER NOT NULL CHECK (commission_cents >= 0),
    executed_at TEXT NOT NULL
) STRICT;

CREATE TABLE watchlists (
    watchlist_id TEXT PRIMARY KEY,
    investor_id TEXT NOT NULL REFERENCES investors(investor_id),
    name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 40),
    created_on TEXT NOT NULL
) STRICT;

CREATE TABLE watchlist_items (
    item_id TEXT PRIMARY KEY,
    watchlist_id TEXT NOT NULL REFERENCES watchlists(watchlist_id),
    instrument_id TEXT NOT NULL REFERENCES instruments(instrument_id),
    added_on TEXT NOT NULL,
    UNIQUE (watchlist_id, instrument_id)
) STRICT;

CREATE TABLE alerts (
    alert_id TEXT PRIMARY KEY,
    investor_id TEXT NOT NULL REFERENCES investors(investor_id),
    instrument_id TEXT NOT NULL REFERENCES instruments(instrument_id),
    direction TEXT NOT NULL CHECK (direction IN ('above', 'below')),
    threshold_cents INTEGER NOT NULL CHECK (threshold_cents > 0),
    status TEXT NOT NULL CHECK (status IN ('active', 'triggered', 'cancelled')),
    created_on TEXT NOT NULL,
    triggered_at TEXT,
    CHECK ((status = 'triggered') = (triggered_at IS NOT NULL))
) STRICT;

CREATE TABLE corporate_actions (
    action_id TEXT PRIMARY KEY,
    instrument_id TEXT NOT NULL REFERENCES instruments(instrument_id),
    action_type TEXT NOT NULL CHECK (action_type IN ('dividend', 'split')),
    ex_date TEXT NOT NULL,
    pay_date TEXT NOT NULL CHECK (pay_date >= ex_date),
    amount_per_share_cents INTEGER CHECK (amount_per_share_cents > 0),
    split_from INTEGER CHECK (split_from > 0),
    split_to INTEGER CHECK (split_to > 0),
    status TEXT NOT NULL CHECK (status IN ('announced', 'processed')),
    processed_at TEXT,
    CHECK ((action_type = 'dividend') = (amount_per_share_cents IS NOT NULL)),
    CHECK ((action_type = 'split') = (split_from IS NOT NULL AND split_to IS NOT NULL)),
    CHECK (split_from IS NULL OR split_from <> split_to),
    CHECK ((status = 'processed') = (processed_at IS NOT NULL))
) STRICT;

CREATE TABLE transfers (
    transfer_id TEXT PRIMARY KEY,
    from_account_id TEXT NOT NULL REFERENCES accounts(account_id),
    to_account_id TEXT NOT NULL REFERENCES accounts(account_id),
    transfer_type TEXT NOT NULL CHECK (transfer_type IN ('cash', 'shares')),
    amount_cents INTEGER CHECK (amount_cents > 0),
    instrument_id TEXT REFERENCES instruments(instrument_id),
    quantity INTEGER CHECK (quantity > 0),
    requested_at TEXT NOT NULL,
    memo TEXT,
    CHECK (from_account_id <> to_account_id),
    CHECK ((transfer_type = 'cash') = (amount_cents IS NOT NULL)),
    CHECK ((transfer_type = 'shares') = (instrument_id IS NOT NULL AND quantity IS NOT NULL))
) STRICT;

CREATE TABLE cash_movements (
    movement_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(account_id),
    movement_type TEXT NOT NULL CHECK (movement_type IN
        ('deposit', 'withdrawal', 'transfer_in', 'transfer_out', 'buy', 'sell', 'dividend', 'cash_in_lieu')),
    amount_cents INTEGER NOT NULL CHECK (amount_cents <> 0),
    reference_id TEXT,
    occurred_at TEXT NOT NULL,
    description TEXT NOT NULL,
    CHECK ((movement_type IN ('withdrawal', 'transfer_out', 'buy')) = (amount_cents < 0))
) STRICT;
