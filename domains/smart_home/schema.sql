-- Smart home world: households, their members and roles, connected devices and what they do.

CREATE TABLE users (
    user_id TEXT PRIMARY KEY CHECK (user_id GLOB 'USR-[0-9][0-9][0-9][0-9][0-9]'),
    full_name TEXT NOT NULL CHECK (length(full_name) BETWEEN 2 AND 80),
    email TEXT NOT NULL UNIQUE CHECK (email LIKE '%_@_%._%'),
    phone TEXT NOT NULL UNIQUE,
    date_of_birth TEXT NOT NULL CHECK (date_of_birth GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    status TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
    created_on TEXT NOT NULL CHECK (created_on GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]')
) STRICT;

CREATE TABLE homes (
    home_id TEXT PRIMARY KEY CHECK (home_id GLOB 'HOME-[0-9][0-9][0-9][0-9][0-9]'),
    name TEXT NOT NULL CHECK (length(name) BETWEEN 2 AND 60),
    street_address TEXT NOT NULL,
    city TEXT NOT NULL,
    region TEXT NOT NULL,
    postal_code TEXT NOT NULL,
    timezone TEXT NOT NULL,
    owner_user_id TEXT NOT NULL REFERENCES users(user_id),
    alarm_mode TEXT NOT NULL CHECK (alarm_mode IN ('disarmed', 'home', 'away', 'night')),
    tariff_cents_per_kwh REAL NOT NULL CHECK (tariff_cents_per_kwh > 0 AND tariff_cents_per_kwh < 100),
    created_on TEXT NOT NULL CHECK (created_on GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]')
) STRICT;

CREATE TABLE memberships (
    membership_id TEXT PRIMARY KEY CHECK (membership_id GLOB 'MBR-[0-9][0-9][0-9][0-9][0-9]'),
    home_id TEXT NOT NULL REFERENCES homes(home_id),
    user_id TEXT NOT NULL REFERENCES users(user_id),
    role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'guest')),
    status TEXT NOT NULL CHECK (status IN ('active', 'revoked')),
    access_expires_on TEXT CHECK (access_expires_on GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    added_on TEXT NOT NULL CHECK (added_on GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    CHECK ((role = 'guest') = (access_expires_on IS NOT NULL))
) STRICT;

CREATE TABLE rooms (
    room_id TEXT PRIMARY KEY CHECK (room_id GLOB 'ROOM-[0-9][0-9][0-9][0-9][0-9]'),
    home_id TEXT NOT NULL REFERENCES homes(home_id),
    name TEXT NOT NULL CHECK (length(name) BETWEEN 2 AND 40),
    floor INTEGER NOT NULL CHECK (floor BETWEEN -2 AND 5),
    room_type TEXT NOT NULL CHECK (room_type IN ('living', 'bedroom', 'kitchen', 'bathroom', 'office', 'hallway',
                                                 'garage', 'basement', 'outdoor', 'dining', 'laundry'))
) STRICT;

CREATE TABLE devices (
    device_id TEXT PRIMARY KEY CHECK (device_id GLOB 'DEV-[0-9][0-9][0-9][0-9][0-9]'),
    home_id TEXT NOT NULL REFERENCES homes(home_id),
    room_id TEXT REFERENCES rooms(room_id),
    name TEXT NOT NULL CHECK (length(name) BETWEEN 2 AND 60),
    device_type TEXT NOT NULL CHECK (device_type IN ('light', 'thermostat', 'lock', 'camera', 'plug', 'sensor')),
    manufacturer TEXT NOT NULL,
    model TEXT NOT NULL,
    capabilities TEXT NOT NULL,
    firmware_version TEXT NOT NULL CHECK (firmware_version GLOB '[0-9]*.[0-9]*.[0-9]*'),
    connectivity TEXT NOT NULL CHECK (connectivity IN ('online', 'offline')),
    power_state TEXT CHECK (power_state IN ('on', 'off')),
    brightness_pct INTEGER CHECK (brightness_pct BETWEEN 1 AND 100),
    hvac_mode TEXT CHECK (hvac_mode IN ('off', 'heat', 'cool', 'auto')),
    target_temp_c REAL CHECK (target_temp_c BETWEEN 7 AND 30),
    lock_state TEXT CHECK (lock_state IN ('locked', 'unlocked', 'jammed')),
    battery_pct INTEGER CHECK (battery_pct BETWEEN 0 AND 100),
    installed_on TEXT NOT NULL CHECK (installed_on GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    last_seen_at TEXT NOT NULL,
    CHECK ((device_type IN ('light', 'plug', 'camera')) = (power_state IS NOT NULL)),
    CHECK (brightness_pct IS NULL OR device_type = 'light'),
    CHECK ((device_type = 'thermostat') = (hvac_mode IS NOT NULL AND target_temp_c IS NOT NULL)),
    CHECK ((device_type = 'lock') = (lock_state IS NOT NULL))
) STRICT;

CREATE TABLE scenes (
    scene_id TEXT PRIMARY KEY CHECK (scene_id GLOB 'SCN-[0-9][0-9][0-9][0-9][0-9]'),
    home_id TEXT NOT NULL REFERENCES homes(home_id),
    name TEXT NOT NULL CHECK (length(name) BETWEEN 2 AND 60),
    status TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
    created_by_user_id TEXT NOT NULL REFERENCES users(user_id),
    created_on TEXT NOT NULL CHECK (created_on GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    last_run_at TEXT
) STRICT;

CREATE TABLE scene_actions (
    action_id TEXT PRIMARY KEY CHECK (action_id GLOB 'SACT-[0-9][0-9][0-9][0-9][0-9]'),
    scene_id TEXT NOT NULL REFERENCES scenes(scene_id),
    position INTEGER NOT NULL CHECK (position BETWEEN 1 AND 12),
    device_id TEXT NOT NULL REFERENCES devices(device_id),
    command TEXT NOT NULL CHECK (command IN ('turn_on', 'turn_off', 'set_brightness', 'set_temperature', 'lock', 'unlock')),
    value REAL,
    CHECK ((command IN ('set_brightness', 'set_temperature')) = (value IS NOT NULL)),
    UNIQUE (scene_id, position)
) STRICT;

CREATE TABLE automations (
    automation_id TEXT PRIMARY KEY CHECK (automation_id GLOB 'AUT-[0-9][0-9][0-9][0-9][0-9]'),
    home_id TEXT NOT NULL REFERENCES homes(home_id),
    name TEXT NOT NULL CHECK (length(name) BETWEEN 2 AND 60),
    trigger_type TEXT NOT NULL CHECK (trigger_type IN ('time', 'sunrise', 'sunset', 'device')),
    trigger_time TEXT CHECK (trigger_time GLOB '[0-2][0-9]:[0-5][0-9]'),
    trigger_device_id TEXT REFERENCES devices(device_id),
    days TEXT NOT NULL CHECK (days IN ('daily', 'weekdays', 'weekends')),
    condition_alarm_mode TEXT CHECK (condition_alarm_mode IN ('disarmed', 'home', 'away', 'night')),
    scene_id TEXT NOT NULL REFERENCES scenes(scene_id),
    enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    created_by_user_id TEXT NOT NULL REFERENCES users(user_id),
    last_triggered_at TEXT,
    CHECK ((trigger_type = 'time') = (trigger_time IS NOT NULL)),
    CHECK ((trigger_type = 'device') = (trigger_device_id IS NOT NULL))
) STRICT;

CREATE TABLE energy_readings (
    reading_id TEXT PRIMARY KEY CHECK (reading_id GLOB 'ENR-[0-9][0-9][0-9][0-9][0-9]'),
    device_id TEXT NOT NULL REFERENCES devices(device_id),
    reading_date TEXT NOT NULL CHECK (reading_date GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    kwh REAL NOT NULL CHECK (kwh >= 0 AND kwh < 200),
    UNIQUE (device_id, reading_date)
) STRICT;

CREATE TABLE access_codes (
    code_id TEXT PRIMARY KEY CHECK (code_id GLOB 'ACC-[0-9][0-9][0-9][0-9][0-9]'),
    device_id TEXT NOT NULL REFERENCES devices(device_id),
    membership_id TEXT REFERENCES memberships(membership_id),
    label TEXT NOT NULL CHECK (length(label) BETWEEN 2 AND 40),
    pin_code TEXT NOT NULL CHECK (length(pin_code) BETWEEN 4 AND 8 AND pin_code NOT GLOB '*[^0-9]*'),
    status TEXT NOT NULL CHECK (status IN ('active', 'revoked', 'expired')),
    valid_from TEXT NOT NULL CHECK (valid_from GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    valid_until TEXT CHECK (valid_until GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    created_by_user_id TEXT NOT NULL REFERENCES users(user_id),
    CHECK (valid_until IS NULL OR valid_until >= valid_from)
) STRICT;

CREATE TABLE alarm_events (
    event_id TEXT PRIMARY KEY CHECK (event_id GLOB 'ALM-[0-9][0-9][0-9][0-9][0-9]'),
    home_id TEXT NOT NULL REFERENCES homes(home_id),
    device_id TEXT REFERENCES devices(device_id),
    event_type TEXT NOT NULL CHECK (event_type IN ('intrusion', 'smoke', 'leak', 'tamper', 'low_battery', 'device_offline')),
    severity TEXT NOT NULL CHECK (severity IN ('critical', 'warning', 'info')),
    status TEXT NOT NULL CHECK (status IN ('open', 'acknowledged', 'resolved')),
    occurred_at TEXT NOT NULL,
    acknowledged_by_user_id TEXT REFERENCES users(user_id),
    acknowledged_at TEXT,
    resolved_at TEXT,
    resolution_note TEXT,
    CHECK ((status = 'open') = (acknowledged_at IS NULL)),
    CHECK ((acknowledged_at IS NULL) = (acknowledged_by_user_id IS NULL)),
    CHECK ((status = 'resolved') = (resolved_at IS NOT NULL))
) STRICT;

CREATE TABLE firmware_updates (
    update_id TEXT PRIMARY KEY CHECK (update_id GLOB 'FWU-[0-9][0-9][0-9][0-9][0-9]'),
    device_id TEXT NOT NULL REFERENCES devices(device_id),
    from_version TEXT NOT NULL,
    to_version TEXT NOT NULL,
    severity TEXT NOT NULL CHECK (severity IN ('security', 'bugfix', 'feature')),
    status TEXT NOT NULL CHECK (status IN ('available', 'scheduled', 'installed', 'failed')),
    released_on TEXT NOT NULL CHECK (released_on GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    scheduled_for TEXT,
    completed_at TEXT,
    CHECK (to_version <> from_version),
    CHECK (status <> 'scheduled' OR scheduled_for IS NOT NULL),
    CHECK ((status IN ('installed', 'failed')) = (completed_at IS NOT NULL))
) STRICT;
