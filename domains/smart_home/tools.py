"""Tools of the smart_home domain: households, members and roles, devices, scenes,
automations, energy, access codes, alarms and firmware.

The agent acts for one household user at a time. Every tool that changes a home or reads a
home's private data takes that user as ``acting_user_id`` (found with identify_user by email,
phone, or full name and date of birth) and checks in code what they may do there: an active
membership of the home, unexpired for guests, and a role that reaches the action
(guest < member < admin < owner). A refusal is ``permission_denied`` naming the tool's rule;
a suspended account is a rule of the world (``not_permitted``).
"""

from datetime import date, datetime, timedelta
from re import fullmatch, sub

from scaleenv_mcp.toolkit import (
    ConflictError,
    InvalidArgumentError,
    NotFoundError,
    NotPermittedError,
    optional_choice,
    optional_date,
    paginate,
    require_choice,
    require_date,
    require_page,
    require_permission,
    require_row,
)

ROLES = ("guest", "member", "admin", "owner")
GRANTABLE_ROLES = ("admin", "member", "guest")
ALARM_MODES = ("disarmed", "home", "away", "night")
ROOM_TYPES = ("living", "bedroom", "kitchen", "bathroom", "office", "hallway", "garage", "basement", "outdoor",
              "dining", "laundry")
DEVICE_TYPES = ("light", "thermostat", "lock", "camera", "plug", "sensor")
TRIGGER_TYPES = ("time", "sunrise", "sunset", "device")
DAYS = ("daily", "weekdays", "weekends")
COMMANDS = ("turn_on", "turn_off", "set_brightness", "set_temperature", "lock", "unlock")
GUEST_MAX_DAYS = 90
MAX_ACTIVE_CODES = 8
MAX_SCENE_ACTIONS = 12
MIN_TEMP_C = 7.0
MAX_TEMP_C = 30.0
MIN_FIRMWARE_BATTERY = 20
MAX_SCHEDULE_DAYS = 30
MAX_REPORT_DAYS = 92

# Permission rules: the same words as each tool's `permission` in domain.json.
OWN_ACCOUNT_RULE = "a user may see only their own account"
VIEW_RULE = "only an active member or unexpired guest of the home may see its data"
CODES_VIEW_RULE = "only an admin or the owner of the home may see its door access codes"
ADD_MEMBER_RULE = "only an admin or the owner of the home may add members, and only the owner may grant the admin role"
CHANGE_ROLE_RULE = ("only an admin or the owner of the home may change roles, and only the owner may grant or "
                    "take away the admin role")
REMOVE_MEMBER_RULE = ("an admin or the owner of the home may remove members and only the owner may remove an admin; "
                      "anyone may leave a home themself")
TRANSFER_RULE = "only the owner of the home may transfer its ownership"
ROOM_RULE = "only an admin or the owner of the home may create rooms"
MOVE_RULE = "only an admin or the owner of the home may move its devices between rooms"
POWER_RULE = ("any member or unexpired guest of the home may switch its lights and plugs; switching a camera "
              "needs a member, admin or owner")
BRIGHTNESS_RULE = "any member or unexpired guest of the home may dim its lights"
THERMOSTAT_RULE = "any member or unexpired guest of the home may adjust its thermostats"
LOCK_RULE = "any member or unexpired guest of the home may lock its doors; unlocking needs a member, admin or owner"
CREATE_SCENE_RULE = ("a member, admin or owner of the home may create scenes; only an admin or the owner may create "
                     "one that unlocks a door")
RUN_SCENE_RULE = "only a member, admin or owner of the home may run its scenes"
SCENE_STATUS_RULE = "only a member, admin or owner of the home may enable or disable its scenes"
CREATE_AUTOMATION_RULE = "only an admin or the owner of the home may create automations"
AUTOMATION_ENABLED_RULE = "only a member, admin or owner of the home may enable or disable its automations"
CREATE_CODE_RULE = "only an admin or the owner of the home may create door access codes"
REVOKE_CODE_RULE = "only an admin or the owner of the home may revoke door access codes"
ALARM_MODE_RULE = "only a member, admin or owner of the home may arm or disarm its alarm"
ACK_RULE = "only a member, admin or owner of the home may acknowledge its alarm events"
RESOLVE_RULE = ("a member, admin or owner of the home may resolve its alarm events; critical events only an admin "
                "or the owner")
SCHEDULE_FW_RULE = "only an admin or the owner of the home may schedule firmware updates"
INSTALL_FW_RULE = "only an admin or the owner of the home may install firmware updates"


# ----------------------------------------------------------------------------- helpers
def _acting_user(ctx, acting_user_id):
    """The acting user's account; not_found names the argument, a suspended account may do nothing."""
    user = require_row(ctx, "SELECT user_id, full_name, status FROM users WHERE user_id = ?", (acting_user_id,),
                       f"acting_user_id {acting_user_id}: no such user")
    if user["status"] != "active":
        raise NotPermittedError(f"acting_user_id {acting_user_id}: the account is suspended and cannot act on any home")
    return user


def _authorize(ctx, home_id, acting_user_id, min_role, rule):
    """The acting user's active, unexpired membership of the home, if their role reaches min_role.

    Every acting tool has already checked the acting user with _acting_user, as its first step.
    """
    membership = ctx.db.fetch_one(
        "SELECT membership_id, home_id, user_id, role, status, access_expires_on FROM memberships "
        "WHERE home_id = ? AND user_id = ? AND status = 'active'",
        (home_id, acting_user_id),
    )
    current = membership is not None and (membership["role"] != "guest" or membership["access_expires_on"] >= ctx.today)
    require_permission(current and ROLES.index(membership["role"]) >= ROLES.index(min_role), rule)
    return membership


def _home(ctx, home_id):
    return require_row(ctx, "SELECT * FROM homes WHERE home_id = ?", (home_id,), f"no home {home_id}")


def _device(ctx, device_id):
    return require_row(ctx, "SELECT * FROM devices WHERE device_id = ?", (device_id,), f"no device {device_id}")


def _caps(device):
    return device["capabilities"].split(",")


def _guest_expiry(ctx, role, access_expires_on):
    """Validate the expiry date rule: guests need one (future, at most 90 days ahead), others none."""
    if role != "guest":
        if access_expires_on is not None:
            raise InvalidArgumentError("access_expires_on is only for the guest role")
        return None
    if access_expires_on is None:
        raise InvalidArgumentError("a guest needs access_expires_on (YYYY-MM-DD)")
    expires = require_date(access_expires_on, "access_expires_on")
    today = date.fromisoformat(ctx.today)
    if expires <= today:
        raise InvalidArgumentError("access_expires_on must be after today")
    if expires > today + timedelta(days=GUEST_MAX_DAYS):
        raise InvalidArgumentError(f"guest access may last at most {GUEST_MAX_DAYS} days")
    return expires.isoformat()


def _phone_digits(phone):
    """A phone number as its digits, without a leading US country code."""
    digits = sub(r"\D", "", phone)
    return digits[1:] if len(digits) == 11 and digits.startswith("1") else digits


# ----------------------------------------------------------------------------- users and homes
def identify_user(ctx, email: str | None = None, phone: str | None = None, full_name: str | None = None,
                  date_of_birth: str | None = None) -> dict:
    if email is not None:
        rows = ctx.db.fetch_all("SELECT user_id FROM users WHERE lower(email) = lower(?) ORDER BY user_id",
                                (email.strip(),))
        asked = "email"
    elif phone is not None:
        wanted = _phone_digits(phone)
        if len(wanted) < 7:
            raise InvalidArgumentError(f"phone must have at least 7 digits; got {phone!r}")
        rows = [r for r in ctx.db.fetch_all("SELECT user_id, phone FROM users ORDER BY user_id")
                if _phone_digits(r["phone"]) == wanted]
        asked = "phone number"
    elif full_name is not None:
        born = optional_date(date_of_birth, "date_of_birth")
        rows = ctx.db.fetch_all(
            "SELECT user_id FROM users WHERE lower(full_name) = lower(?) AND (? IS NULL OR date_of_birth = ?) "
            "ORDER BY user_id",
            (full_name.strip(), born, born),
        )
        asked = "full name and date of birth" if born else "full name"
    else:
        raise InvalidArgumentError("give email, phone, or full_name with date_of_birth")
    if not rows:
        raise NotFoundError(f"no user account matches this {asked}; check the spelling or ask for the email")
    if len(rows) > 1:
        raise InvalidArgumentError(f"{len(rows)} users are named {full_name}; ask for the date of birth or the email")
    user = ctx.db.fetch_one(
        "SELECT user_id, full_name, email, phone, date_of_birth, status FROM users WHERE user_id = ?",
        (rows[0]["user_id"],),
    )
    user["homes"] = ctx.db.fetch_all(
        "SELECT m.membership_id, m.home_id, h.name AS home_name, h.city, m.role, m.access_expires_on "
        "FROM memberships m JOIN homes h ON h.home_id = m.home_id WHERE m.user_id = ? AND m.status = 'active' "
        "ORDER BY m.membership_id",
        (user["user_id"],),
    )
    return user


def find_users(ctx, text: str | None = None, email: str | None = None, status: str | None = None,
               limit: int = 20, offset: int = 0) -> dict:
    require_page(limit, offset)
    optional_choice(status, ("active", "suspended"), "status")
    params = (text, text, email, email, status, status)
    rows = ctx.db.fetch_all(
        "SELECT user_id, full_name, email, status FROM users "
        "WHERE (? IS NULL OR full_name LIKE '%' || ? || '%') AND (? IS NULL OR lower(email) = lower(?)) "
        "AND (? IS NULL OR status = ?) ORDER BY full_name, user_id LIMIT ? OFFSET ?",
        (*params, limit, offset),
    )
    total = ctx.db.fetch_one(
        "SELECT count(*) AS n FROM users "
        "WHERE (? IS NULL OR full_name LIKE '%' || ? || '%') AND (? IS NULL OR lower(email) = lower(?)) "
        "AND (? IS NULL OR status = ?)",
        params,
    )["n"]
    return {"items": rows, "total": total}


def get_user(ctx, acting_user_id: str, user_id: str) -> dict:
    require_row(ctx, "SELECT user_id FROM users WHERE user_id = ?", (acting_user_id,),
                f"acting_user_id {acting_user_id}: no such user")
    user = require_row(
        ctx,
        "SELECT user_id, full_name, email, phone, date_of_birth, status, created_on FROM users WHERE user_id = ?",
        (user_id,),
        f"no user {user_id}",
    )
    require_permission(acting_user_id == user_id, OWN_ACCOUNT_RULE)
    user["memberships"] = ctx.db.fetch_all(
        "SELECT m.membership_id, m.home_id, h.name AS home_name, m.role, m.status, m.access_expires_on "
        "FROM memberships m JOIN homes h ON h.home_id = m.home_id WHERE m.user_id = ? ORDER BY m.membership_id",
        (user_id,),
    )
    return user


def find_homes(ctx, acting_user_id: str, text: str | None = None, city: str | None = None,
               limit: int = 20, offset: int = 0) -> dict:
    _acting_user(ctx, acting_user_id)
    require_page(limit, offset)
    rows = ctx.db.fetch_all(
        "SELECT h.home_id, h.name, h.street_address, h.city, h.region, h.owner_user_id, h.alarm_mode, m.role, "
        "m.membership_id FROM homes h JOIN memberships m ON m.home_id = h.home_id AND m.user_id = ? "
        "AND m.status = 'active' "
        "WHERE (? IS NULL OR h.name LIKE '%' || ? || '%' OR h.street_address LIKE '%' || ? || '%') "
        "AND (? IS NULL OR lower(h.city) = lower(?)) ORDER BY h.home_id",
        (acting_user_id, text, text, text, city, city),
    )
    return paginate(rows, limit, offset)


def get_home(ctx, acting_user_id: str, home_id: str) -> dict:
    _acting_user(ctx, acting_user_id)
    home = _home(ctx, home_id)
    _authorize(ctx, home_id, acting_user_id, "guest", VIEW_RULE)
    counts = ctx.db.fetch_one(
        "SELECT (SELECT count(*) FROM memberships WHERE home_id = ? AND status = 'active') AS active_member_count, "
        "(SELECT count(*) FROM rooms WHERE home_id = ?) AS room_count, "
        "(SELECT count(*) FROM devices WHERE home_id = ?) AS device_count, "
        "(SELECT count(*) FROM devices WHERE home_id = ? AND connectivity = 'offline') AS offline_device_count, "
        "(SELECT count(*) FROM alarm_events WHERE home_id = ? AND status = 'open') AS open_alarm_count",
        (home_id, home_id, home_id, home_id, home_id),
    )
    home.update(counts)
    return home


def list_home_members(ctx, acting_user_id: str, home_id: str, role: str | None = None,
                      status: str | None = None) -> dict:
    _acting_user(ctx, acting_user_id)
    _home(ctx, home_id)
    _authorize(ctx, home_id, acting_user_id, "guest", VIEW_RULE)
    optional_choice(role, ROLES, "role")
    optional_choice(status, ("active", "revoked"), "status")
    rows = ctx.db.fetch_all(
        "SELECT m.membership_id, m.user_id, u.full_name, u.email, m.role, m.status, m.access_expires_on, m.added_on "
        "FROM memberships m JOIN users u ON u.user_id = m.user_id WHERE m.home_id = ? "
        "AND (? IS NULL OR m.role = ?) AND (? IS NULL OR m.status = ?) ORDER BY m.membership_id",
        (home_id, role, role, status, status),
    )
    return {"home_id": home_id, "items": rows}


def list_rooms(ctx, acting_user_id: str, home_id: str) -> dict:
    _acting_user(ctx, acting_user_id)
    _home(ctx, home_id)
    _authorize(ctx, home_id, acting_user_id, "guest", VIEW_RULE)
    rows = ctx.db.fetch_all(
        "SELECT r.room_id, r.home_id, r.name, r.floor, r.room_type, "
        "(SELECT count(*) FROM devices d WHERE d.room_id = r.room_id) AS device_count "
        "FROM rooms r WHERE r.home_id = ? ORDER BY r.floor, r.room_id",
        (home_id,),
    )
    return {"home_id": home_id, "items": rows}


# ----------------------------------------------------------------------------- devices
def find_devices(ctx, acting_user_id: str, home_id: str | None = None, room_id: str | None = None,
                 device_type: str | None = None, connectivity: str | None = None, text: str | None = None,
                 battery_below: int | None = None, limit: int = 25, offset: int = 0) -> dict:
    _acting_user(ctx, acting_user_id)
    require_page(limit, offset)
    optional_choice(device_type, DEVICE_TYPES, "device_type")
    optional_choice(connectivity, ("online", "offline"), "connectivity")
    if battery_below is not None and (battery_below < 1 or battery_below > 100):
        raise InvalidArgumentError("battery_below must be between 1 and 100")
    if home_id is not None:
        _home(ctx, home_id)
        _authorize(ctx, home_id, acting_user_id, "guest", VIEW_RULE)
    rows = ctx.db.fetch_all(
        "SELECT d.device_id, d.home_id, d.room_id, r.name AS room_name, d.name, d.device_type, d.model, "
        "d.connectivity, d.firmware_version, d.battery_pct FROM devices d LEFT JOIN rooms r ON r.room_id = d.room_id "
        "WHERE d.home_id IN (SELECT home_id FROM memberships WHERE user_id = ? AND status = 'active' "
        "AND (role <> 'guest' OR access_expires_on >= ?)) "
        "AND (? IS NULL OR d.home_id = ?) AND (? IS NULL OR d.room_id = ?) AND (? IS NULL OR d.device_type = ?) "
        "AND (? IS NULL OR d.connectivity = ?) "
        "AND (? IS NULL OR d.name LIKE '%' || ? || '%' OR d.model LIKE '%' || ? || '%') "
        "AND (? IS NULL OR d.battery_pct < ?) ORDER BY d.device_id",
        (acting_user_id, ctx.today, home_id, home_id, room_id, room_id, device_type, device_type, connectivity,
         connectivity, text, text, text, battery_below, battery_below),
    )
    return paginate(rows, limit, offset)


def get_device(ctx, acting_user_id: str, device_id: str) -> dict:
    _acting_user(ctx, acting_user_id)
    device = require_row(
        ctx,
        "SELECT d.*, r.name AS room_name, h.name AS home_name FROM devices d JOIN homes h ON h.home_id = d.home_id "
        "LEFT JOIN rooms r ON r.room_id = d.room_id WHERE d.device_id = ?",
        (device_id,),
        f"no device {device_id}",
    )
    _authorize(ctx, device["home_id"], acting_user_id, "guest", VIEW_RULE)
    device["capabilities"] = _caps(device)
    return device


def move_device(ctx, acting_user_id: str, device_id: str, room_id: str) -> dict:
    _acting_user(ctx, acting_user_id)
    device = _device(ctx, device_id)
    _authorize(ctx, device["home_id"], acting_user_id, "admin", MOVE_RULE)
    room = require_row(
        ctx, "SELECT room_id, home_id, name FROM rooms WHERE room_id = ?", (room_id,), f"no room {room_id}"
    )
    if room["home_id"] != device["home_id"]:
        raise InvalidArgumentError(f"room {room_id} belongs to home {room['home_id']}, not to the device's home "
                                   f"{device['home_id']}")
    if device["room_id"] == room_id:
        raise ConflictError(f"device {device_id} is already in room {room_id}")
    ctx.db.execute("UPDATE devices SET room_id = ? WHERE device_id = ?", (room_id, device_id))
    return {"device_id": device_id, "room_id": room_id, "room_name": room["name"], "previous_room_id": device["room_id"]}


def set_device_power(ctx, acting_user_id: str, device_id: str, power_state: str) -> dict:
    _acting_user(ctx, acting_user_id)
    device = _device(ctx, device_id)
    _authorize(ctx, device["home_id"], acting_user_id, "member" if device["device_type"] == "camera" else "guest", POWER_RULE)
    require_choice(power_state, ("on", "off"), "power_state")
    if "on_off" not in _caps(device):
        raise InvalidArgumentError(f"device {device_id} ({device['device_type']}) cannot be switched on or off")
    if device["connectivity"] != "online":
        raise ConflictError(f"device {device_id} is offline since {device['last_seen_at']}; it cannot take commands")
    changed = device["power_state"] != power_state
    if changed:
        ctx.db.execute("UPDATE devices SET power_state = ? WHERE device_id = ?", (power_state, device_id))
    return {"device_id": device_id, "power_state": power_state, "previous_power_state": device["power_state"],
            "changed": changed}


def set_light_brightness(ctx, acting_user_id: str, device_id: str, brightness_pct: int) -> dict:
    _acting_user(ctx, acting_user_id)
    device = _device(ctx, device_id)
    _authorize(ctx, device["home_id"], acting_user_id, "guest", BRIGHTNESS_RULE)
    if device["device_type"] != "light" or "dimming" not in _caps(device):
        raise InvalidArgumentError(f"device {device_id} is not a dimmable light")
    if brightness_pct < 1 or brightness_pct > 100:
        raise InvalidArgumentError("brightness_pct must be between 1 and 100")
    if device["connectivity"] != "online":
        raise ConflictError(f"device {device_id} is offline since {device['last_seen_at']}; it cannot take commands")
    ctx.db.execute("UPDATE devices SET brightness_pct = ?, power_state = 'on' WHERE device_id = ?",
                   (brightness_pct, device_id))
    return {"device_id": device_id, "brightness_pct": brightness_pct, "power_state": "on",
            "previous_brightness_pct": device["brightness_pct"], "previous_power_state": device["power_state"]}


def _valid_temperature(value, name):
    if value < MIN_TEMP_C or value > MAX_TEMP_C or round(value * 2) != value * 2:
        raise InvalidArgumentError(f"{name} must be between {MIN_TEMP_C} and {MAX_TEMP_C} degrees C in 0.5 steps")
    return float(value)


def set_thermostat(ctx, acting_user_id: str, device_id: str, hvac_mode: str | None = None,
                   target_temp_c: float | None = None) -> dict:
    _acting_user(ctx, acting_user_id)
    device = _device(ctx, device_id)
    _authorize(ctx, device["home_id"], acting_user_id, "guest", THERMOSTAT_RULE)
    if device["device_type"] != "thermostat":
        raise InvalidArgumentError(f"device {device_id} is a {device['device_type']}, not a thermostat")
    if hvac_mode is None and target_temp_c is None:
        raise InvalidArgumentError("give hvac_mode, target_temp_c or both")
    optional_choice(hvac_mode, ("off", "heat", "cool", "auto"), "hvac_mode")
    if hvac_mode in ("cool", "auto") and "cooling" not in _caps(device):
        raise InvalidArgumentError(f"device {device_id} can only heat; mode {hvac_mode} needs cooling")
    mode = device["hvac_mode"] if hvac_mode is None else hvac_mode
    target = device["target_temp_c"] if target_temp_c is None else _valid_temperature(target_temp_c, "target_temp_c")
    if device["connectivity"] != "online":
        raise ConflictError(f"device {device_id} is offline since {device['last_seen_at']}; it cannot take commands")
    ctx.db.execute("UPDATE devices SET hvac_mode = ?, target_temp_c = ? WHERE device_id = ?", (mode, target, device_id))
    return {"device_id": device_id, "hvac_mode": mode, "target_temp_c": target,
            "previous_hvac_mode": device["hvac_mode"], "previous_target_temp_c": device["target_temp_c"]}


def set_lock_state(ctx, acting_user_id: str, device_id: str, lock_state: str) -> dict:
    _acting_user(ctx, acting_user_id)
    device = _device(ctx, device_id)
    require_choice(lock_state, ("locked", "unlocked"), "lock_state")
    if device["device_type"] != "lock":
        raise InvalidArgumentError(f"device {device_id} is a {device['device_type']}, not a lock")
    _authorize(ctx, device["home_id"], acting_user_id, "member" if lock_state == "unlocked" else "guest", LOCK_RULE)
    if device["connectivity"] != "online":
        raise ConflictError(f"device {device_id} is offline since {device['last_seen_at']}; it cannot take commands")
    if device["lock_state"] == "jammed":
        raise ConflictError(f"lock {device_id} is jammed; it must be cleared by hand before remote commands work")
    if lock_state == "unlocked":
        home = _home(ctx, device["home_id"])
        if home["alarm_mode"] == "away":
            raise ConflictError(f"home {device['home_id']} is armed away; disarm it before unlocking a door")
    changed = device["lock_state"] != lock_state
    if changed:
        ctx.db.execute("UPDATE devices SET lock_state = ? WHERE device_id = ?", (lock_state, device_id))
    return {"device_id": device_id, "lock_state": lock_state, "previous_lock_state": device["lock_state"],
            "changed": changed}


# ----------------------------------------------------------------------------- members
def add_home_member(ctx, acting_user_id: str, home_id: str, email: str, role: str,
                    access_expires_on: str | None = None) -> dict:
    _acting_user(ctx, acting_user_id)
    _home(ctx, home_id)
    actor = _authorize(ctx, home_id, acting_user_id, "admin", ADD_MEMBER_RULE)
    if role not in GRANTABLE_ROLES:
        raise InvalidArgumentError("role must be admin, member or guest (ownership moves with transfer_home_ownership)")
    require_permission(role != "admin" or actor["role"] == "owner", ADD_MEMBER_RULE)
    expires = _guest_expiry(ctx, role, access_expires_on)
    invitee = require_row(
        ctx,
        "SELECT user_id, full_name, status FROM users WHERE lower(email) = lower(?)",
        (email,),
        f"no user account has the email {email}",
    )
    if invitee["status"] != "active":
        raise NotPermittedError(f"the account of {email} is suspended and cannot join a home")
    existing = ctx.db.fetch_one(
        "SELECT membership_id, role FROM memberships WHERE home_id = ? AND user_id = ? AND status = 'active'",
        (home_id, invitee["user_id"]),
    )
    if existing is not None:
        raise ConflictError(f"{email} is already an active {existing['role']} of home {home_id} "
                            f"({existing['membership_id']}); use change_member_role")
    membership_id = ctx.new_id("MBR")
    ctx.db.execute(
        "INSERT INTO memberships (membership_id, home_id, user_id, role, status, access_expires_on, added_on) "
        "VALUES (?, ?, ?, ?, 'active', ?, ?)",
        (membership_id, home_id, invitee["user_id"], role, expires, ctx.today),
    )
    return {"membership_id": membership_id, "home_id": home_id, "user_id": invitee["user_id"],
            "full_name": invitee["full_name"], "role": role, "status": "active", "access_expires_on": expires}


def _membership(ctx, membership_id):
    return require_row(
        ctx, "SELECT * FROM memberships WHERE membership_id = ?", (membership_id,), f"no membership {membership_id}"
    )


def change_member_role(ctx, acting_user_id: str, membership_id: str, role: str, access_expires_on: str | None = None) -> dict:
    _acting_user(ctx, acting_user_id)
    target = _membership(ctx, membership_id)
    actor = _authorize(ctx, target["home_id"], acting_user_id, "admin", CHANGE_ROLE_RULE)
    if role not in GRANTABLE_ROLES:
        raise InvalidArgumentError("role must be admin, member or guest (ownership moves with transfer_home_ownership)")
    if target["status"] != "active":
        raise ConflictError(f"membership {membership_id} is revoked; add the person again with add_home_member")
    if target["role"] == "owner":
        raise ConflictError("the owner's role changes only through transfer_home_ownership")
    require_permission(actor["role"] == "owner" or (role != "admin" and target["role"] != "admin"), CHANGE_ROLE_RULE)
    if target["role"] == role:
        raise ConflictError(f"membership {membership_id} already has the role {role}")
    expires = _guest_expiry(ctx, role, access_expires_on)
    ctx.db.execute("UPDATE memberships SET role = ?, access_expires_on = ? WHERE membership_id = ?",
                   (role, expires, membership_id))
    return {"membership_id": membership_id, "home_id": target["home_id"], "user_id": target["user_id"], "role": role,
            "previous_role": target["role"], "access_expires_on": expires}


def remove_home_member(ctx, acting_user_id: str, membership_id: str) -> dict:
    _acting_user(ctx, acting_user_id)
    target = _membership(ctx, membership_id)
    leaving = target["user_id"] == acting_user_id
    actor = _authorize(ctx, target["home_id"], acting_user_id, "guest" if leaving else "admin", REMOVE_MEMBER_RULE)
    if target["status"] != "active":
        raise ConflictError(f"membership {membership_id} is already revoked")
    if target["role"] == "owner":
        raise ConflictError("the owner cannot be removed; transfer ownership first")
    require_permission(leaving or target["role"] != "admin" or actor["role"] == "owner", REMOVE_MEMBER_RULE)
    codes = ctx.db.fetch_all(
        "SELECT code_id FROM access_codes WHERE membership_id = ? AND status = 'active' ORDER BY code_id",
        (membership_id,),
    )
    code_ids = [c["code_id"] for c in codes]
    ctx.db.execute("UPDATE memberships SET status = 'revoked' WHERE membership_id = ?", (membership_id,))
    ctx.db.execute("UPDATE access_codes SET status = 'revoked' WHERE membership_id = ? AND status = 'active'",
                   (membership_id,))
    return {"membership_id": membership_id, "home_id": target["home_id"], "user_id": target["user_id"],
            "status": "revoked", "revoked_code_ids": code_ids}


def transfer_home_ownership(ctx, acting_user_id: str, home_id: str, membership_id: str) -> dict:
    _acting_user(ctx, acting_user_id)
    _home(ctx, home_id)
    actor = _authorize(ctx, home_id, acting_user_id, "owner", TRANSFER_RULE)
    target = _membership(ctx, membership_id)
    if target["home_id"] != home_id:
        raise InvalidArgumentError(f"membership {membership_id} belongs to home {target['home_id']}, not {home_id}")
    if target["status"] != "active" or target["role"] != "admin":
        raise ConflictError("the new owner must be an active admin of the home; promote them with change_member_role first")
    ctx.db.execute("UPDATE homes SET owner_user_id = ? WHERE home_id = ?", (target["user_id"], home_id))
    ctx.db.execute("UPDATE memberships SET role = 'owner' WHERE membership_id = ?", (membership_id,))
    ctx.db.execute("UPDATE memberships SET role = 'admin' WHERE membership_id = ?", (actor["membership_id"],))
    return {"home_id": home_id, "owner_user_id": target["user_id"], "previous_owner_user_id": acting_user_id,
            "membership_id": membership_id, "previous_owner_membership_id": actor["membership_id"]}


def create_room(ctx, acting_user_id: str, home_id: str, name: str, floor: int, room_type: str) -> dict:
    _acting_user(ctx, acting_user_id)
    _home(ctx, home_id)
    _authorize(ctx, home_id, acting_user_id, "admin", ROOM_RULE)
    clean = name.strip()
    if len(clean) < 2 or len(clean) > 40:
        raise InvalidArgumentError("room name must be 2 to 40 characters")
    if floor < -2 or floor > 5:
        raise InvalidArgumentError("floor must be between -2 and 5")
    require_choice(room_type, ROOM_TYPES, "room_type")
    clash = ctx.db.fetch_one("SELECT room_id FROM rooms WHERE home_id = ? AND lower(name) = lower(?)", (home_id, clean))
    if clash is not None:
        raise ConflictError(f"home {home_id} already has a room named {clean!r} ({clash['room_id']})")
    room_id = ctx.new_id("ROOM")
    ctx.db.execute("INSERT INTO rooms (room_id, home_id, name, floor, room_type) VALUES (?, ?, ?, ?, ?)",
                   (room_id, home_id, clean, floor, room_type))
    return {"room_id": room_id, "home_id": home_id, "name": clean, "floor": floor, "room_type": room_type}


# ----------------------------------------------------------------------------- scenes and automations
def list_scenes(ctx, acting_user_id: str, home_id: str, status: str | None = None, text: str | None = None) -> dict:
    _acting_user(ctx, acting_user_id)
    _home(ctx, home_id)
    _authorize(ctx, home_id, acting_user_id, "guest", VIEW_RULE)
    optional_choice(status, ("active", "disabled"), "status")
    rows = ctx.db.fetch_all(
        "SELECT s.scene_id, s.home_id, s.name, s.status, "
        "(SELECT count(*) FROM scene_actions a WHERE a.scene_id = s.scene_id) AS action_count, "
        "s.created_by_user_id, s.last_run_at FROM scenes s WHERE s.home_id = ? AND (? IS NULL OR s.status = ?) "
        "AND (? IS NULL OR s.name LIKE '%' || ? || '%') ORDER BY s.scene_id",
        (home_id, status, status, text, text),
    )
    return {"home_id": home_id, "items": rows}


def get_scene(ctx, acting_user_id: str, scene_id: str) -> dict:
    _acting_user(ctx, acting_user_id)
    scene = require_row(ctx, "SELECT * FROM scenes WHERE scene_id = ?", (scene_id,), f"no scene {scene_id}")
    _authorize(ctx, scene["home_id"], acting_user_id, "guest", VIEW_RULE)
    scene["actions"] = ctx.db.fetch_all(
        "SELECT a.action_id, a.position, a.device_id, d.name AS device_name, a.command, a.value "
        "FROM scene_actions a JOIN devices d ON d.device_id = a.device_id WHERE a.scene_id = ? ORDER BY a.position",
        (scene_id,),
    )
    return scene


def _check_action(ctx, home_id, role, index, action):
    if not isinstance(action, dict) or set(action) - {"device_id", "command", "value"}:
        raise InvalidArgumentError(f"action {index} must be an object with device_id, command and optional value")
    device_id = action.get("device_id")
    command = action.get("command")
    value = action.get("value")
    device = ctx.db.fetch_one("SELECT * FROM devices WHERE device_id = ? AND home_id = ?", (device_id, home_id))
    if device is None:
        raise InvalidArgumentError(f"action {index}: device {device_id} is not a device of home {home_id}")
    require_choice(command, COMMANDS, f"action {index} command")
    caps = _caps(device)
    needs = {"turn_on": "on_off", "turn_off": "on_off", "set_brightness": "dimming", "set_temperature": "heating",
             "lock": "lock", "unlock": "lock"}[command]
    if needs not in caps:
        raise InvalidArgumentError(f"action {index}: device {device_id} has no {needs} capability for {command}")
    if command == "set_brightness":
        if not isinstance(value, (int, float)) or value != int(value) or value < 1 or value > 100:
            raise InvalidArgumentError(f"action {index}: set_brightness needs an integer value 1-100")
        value = float(value)
    elif command == "set_temperature":
        if not isinstance(value, (int, float)):
            raise InvalidArgumentError(f"action {index}: set_temperature needs a value in degrees C")
        value = _valid_temperature(value, f"action {index} value")
    elif value is not None:
        raise InvalidArgumentError(f"action {index}: {command} takes no value")
    require_permission(command != "unlock" or ROLES.index(role) >= ROLES.index("admin"), CREATE_SCENE_RULE)
    return device_id, command, value


def create_scene(ctx, acting_user_id: str, home_id: str, name: str, actions: list) -> dict:
    _acting_user(ctx, acting_user_id)
    _home(ctx, home_id)
    actor = _authorize(ctx, home_id, acting_user_id, "member", CREATE_SCENE_RULE)
    clean = name.strip()
    if len(clean) < 2 or len(clean) > 60:
        raise InvalidArgumentError("scene name must be 2 to 60 characters")
    if len(actions) < 1 or len(actions) > MAX_SCENE_ACTIONS:
        raise InvalidArgumentError(f"a scene needs 1 to {MAX_SCENE_ACTIONS} actions")
    steps = [_check_action(ctx, home_id, actor["role"], i, a) for i, a in enumerate(actions, start=1)]
    clash = ctx.db.fetch_one(
        "SELECT scene_id FROM scenes WHERE home_id = ? AND status = 'active' AND lower(name) = lower(?)", (home_id, clean)
    )
    if clash is not None:
        raise ConflictError(f"home {home_id} already has an active scene named {clean!r} ({clash['scene_id']})")
    scene_id = ctx.new_id("SCN")
    ctx.db.execute(
        "INSERT INTO scenes (scene_id, home_id, name, status, created_by_user_id, created_on, last_run_at) "
        "VALUES (?, ?, ?, 'active', ?, ?, NULL)",
        (scene_id, home_id, clean, acting_user_id, ctx.today),
    )
    action_ids = []
    for position, (device_id, command, value) in enumerate(steps, start=1):
        action_id = ctx.new_id("SACT")
        ctx.db.execute(
            "INSERT INTO scene_actions (action_id, scene_id, position, device_id, command, value) VALUES (?, ?, ?, ?, ?, ?)",
            (action_id, scene_id, position, device_id, command, value),
        )
        action_ids.append(action_id)
    return {"scene_id": scene_id, "home_id": home_id, "name": clean, "status": "active", "action_ids": action_ids}


def run_scene(ctx, acting_user_id: str, scene_id: str) -> dict:
    _acting_user(ctx, acting_user_id)
    scene = require_row(ctx, "SELECT * FROM scenes WHERE scene_id = ?", (scene_id,), f"no scene {scene_id}")
    _authorize(ctx, scene["home_id"], acting_user_id, "member", RUN_SCENE_RULE)
    if scene["status"] != "active":
        raise ConflictError(f"scene {scene_id} is disabled; enable it with set_scene_status first")
    home = _home(ctx, scene["home_id"])
    actions = ctx.db.fetch_all(
        "SELECT a.action_id, a.device_id, a.command, a.value, d.connectivity, d.lock_state "
        "FROM scene_actions a JOIN devices d ON d.device_id = a.device_id WHERE a.scene_id = ? ORDER BY a.position",
        (scene_id,),
    )
    applied = []
    skipped = []
    for action in actions:
        command = action["command"]
        reason = None
        if action["connectivity"] != "online":
            reason = "device_offline"
        elif command in ("lock", "unlock") and action["lock_state"] == "jammed":
            reason = "lock_jammed"
        elif command == "unlock" and home["alarm_mode"] == "away":
            reason = "alarm_armed_away"
        if reason is not None:
            skipped.append({"action_id": action["action_id"], "device_id": action["device_id"], "reason": reason})
            continue
        if command in ("turn_on", "turn_off"):
            ctx.db.execute("UPDATE devices SET power_state = ? WHERE device_id = ?",
                           ("on" if command == "turn_on" else "off", action["device_id"]))
        elif command == "set_brightness":
            ctx.db.execute("UPDATE devices SET brightness_pct = ?, power_state = 'on' WHERE device_id = ?",
                           (int(action["value"]), action["device_id"]))
        elif command == "set_temperature":
            ctx.db.execute("UPDATE devices SET target_temp_c = ? WHERE device_id = ?",
                           (action["value"], action["device_id"]))
        else:
            ctx.db.execute("UPDATE devices SET lock_state = ? WHERE device_id = ?",
                           ("locked" if command == "lock" else "unlocked", action["device_id"]))
        applied.append({"action_id": action["action_id"], "device_id": action["device_id"], "command": command})
    ctx.db.execute("UPDATE scenes SET last_run_at = ? WHERE scene_id = ?", (ctx.now, scene_id))
    return {"scene_id": scene_id, "ran_at": ctx.now, "applied": applied, "skipped": skipped}


def set_scene_status(ctx, acting_user_id: str, scene_id: str, status: str) -> dict:
    _acting_user(ctx, acting_user_id)
    scene = require_row(ctx, "SELECT * FROM scenes WHERE scene_id = ?", (scene_id,), f"no scene {scene_id}")
    _authorize(ctx, scene["home_id"], acting_user_id, "member", SCENE_STATUS_RULE)
    require_choice(status, ("active", "disabled"), "status")
    if scene["status"] == status:
        raise ConflictError(f"scene {scene_id} is already {status}")
    if status == "disabled":
        running = ctx.db.fetch_all(
            "SELECT automation_id FROM automations WHERE scene_id = ? AND enabled = 1 ORDER BY automation_id", (scene_id,)
        )
        if running:
            names = ", ".join(a["automation_id"] for a in running)
            raise ConflictError(f"scene {scene_id} is run by enabled automations {names}; disable them first")
    else:
        clash = ctx.db.fetch_one(
            "SELECT scene_id FROM scenes WHERE home_id = ? AND status = 'active' AND lower(name) = lower(?)",
            (scene["home_id"], scene["name"]),
        )
        if clash is not None:
            raise ConflictError(f"another active scene {clash['scene_id']} already has the name {scene['name']!r}")
    ctx.db.execute("UPDATE scenes SET status = ? WHERE scene_id = ?", (status, scene_id))
    return {"scene_id": scene_id, "status": status, "previous_status": scene["status"]}


def list_automations(ctx, acting_user_id: str, home_id: str, enabled: bool | None = None,
                     trigger_type: str | None = None, scene_id: str | None = None) -> dict:
    _acting_user(ctx, acting_user_id)
    _home(ctx, home_id)
    _authorize(ctx, home_id, acting_user_id, "guest", VIEW_RULE)
    optional_choice(trigger_type, TRIGGER_TYPES, "trigger_type")
    flag = None if enabled is None else (1 if enabled else 0)
    rows = ctx.db.fetch_all(
        "SELECT a.automation_id, a.home_id, a.name, a.trigger_type, a.trigger_time, a.trigger_device_id, a.days, "
        "a.condition_alarm_mode, a.scene_id, s.name AS scene_name, a.enabled, a.created_by_user_id, a.last_triggered_at "
        "FROM automations a JOIN scenes s ON s.scene_id = a.scene_id WHERE a.home_id = ? "
        "AND (? IS NULL OR a.enabled = ?) AND (? IS NULL OR a.trigger_type = ?) AND (? IS NULL OR a.scene_id = ?) "
        "ORDER BY a.automation_id",
        (home_id, flag, flag, trigger_type, trigger_type, scene_id, scene_id),
    )
    for row in rows:
        row["enabled"] = bool(row["enabled"])
    return {"home_id": home_id, "items": rows}


def create_automation(ctx, acting_user_id: str, home_id: str, name: str, trigger_type: str, scene_id: str,
                      trigger_time: str | None = None, trigger_device_id: str | None = None, days: str = "daily",
                      condition_alarm_mode: str | None = None) -> dict:
    _acting_user(ctx, acting_user_id)
    _home(ctx, home_id)
    _authorize(ctx, home_id, acting_user_id, "admin", CREATE_AUTOMATION_RULE)
    clean = name.strip()
    if len(clean) < 2 or len(clean) > 60:
        raise InvalidArgumentError("automation name must be 2 to 60 characters")
    require_choice(trigger_type, TRIGGER_TYPES, "trigger_type")
    require_choice(days, DAYS, "days")
    optional_choice(condition_alarm_mode, ALARM_MODES, "condition_alarm_mode")
    if (trigger_type == "time") != (trigger_time is not None):
        raise InvalidArgumentError("trigger_time (HH:MM) is required for a time trigger and not allowed otherwise")
    if trigger_time is not None and not fullmatch(r"([01]\d|2[0-3]):[0-5]\d", trigger_time):
        raise InvalidArgumentError("trigger_time must be HH:MM on a 24-hour clock")
    if (trigger_type == "device") != (trigger_device_id is not None):
        raise InvalidArgumentError("trigger_device_id is required for a device trigger and not allowed otherwise")
    if trigger_device_id is not None:
        sensor = require_row(
            ctx,
            "SELECT device_id, home_id, device_type FROM devices WHERE device_id = ?",
            (trigger_device_id,),
            f"no device {trigger_device_id}",
        )
        if sensor["home_id"] != home_id or sensor["device_type"] != "sensor":
            raise InvalidArgumentError(f"trigger device {trigger_device_id} must be a sensor of home {home_id}")
    scene = require_row(
        ctx, "SELECT scene_id, home_id, status FROM scenes WHERE scene_id = ?", (scene_id,), f"no scene {scene_id}"
    )
    if scene["home_id"] != home_id:
        raise InvalidArgumentError(f"scene {scene_id} belongs to home {scene['home_id']}, not {home_id}")
    if scene["status"] != "active":
        raise ConflictError(f"scene {scene_id} is disabled; an automation can only run an active scene")
    clash = ctx.db.fetch_one("SELECT automation_id FROM automations WHERE home_id = ? AND lower(name) = lower(?)",
                             (home_id, clean))
    if clash is not None:
        raise ConflictError(f"home {home_id} already has an automation named {clean!r} ({clash['automation_id']})")
    automation_id = ctx.new_id("AUT")
    ctx.db.execute(
        "INSERT INTO automations (automation_id, home_id, name, trigger_type, trigger_time, trigger_device_id, days, "
        "condition_alarm_mode, scene_id, enabled, created_by_user_id, last_triggered_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, NULL)",
        (automation_id, home_id, clean, trigger_type, trigger_time, trigger_device_id, days, condition_alarm_mode,
         scene_id, acting_user_id),
    )
    return {"automation_id": automation_id, "home_id": home_id, "name": clean, "trigger_type": trigger_type,
            "trigger_time": trigger_time, "trigger_device_id": trigger_device_id, "days": days,
            "condition_alarm_mode": condition_alarm_mode, "scene_id": scene_id, "enabled": True}


def set_automation_enabled(ctx, acting_user_id: str, automation_id: str, enabled: bool) -> dict:
    _acting_user(ctx, acting_user_id)
    automation = require_row(
        ctx, "SELECT * FROM automations WHERE automation_id = ?", (automation_id,), f"no automation {automation_id}"
    )
    _authorize(ctx, automation["home_id"], acting_user_id, "member", AUTOMATION_ENABLED_RULE)
    if bool(automation["enabled"]) == enabled:
        raise ConflictError(f"automation {automation_id} is already {'enabled' if enabled else 'disabled'}")
    if enabled:
        scene = ctx.db.fetch_one("SELECT status FROM scenes WHERE scene_id = ?", (automation["scene_id"],))
        if scene["status"] != "active":
            raise ConflictError(f"its scene {automation['scene_id']} is disabled; enable the scene first")
    ctx.db.execute("UPDATE automations SET enabled = ? WHERE automation_id = ?", (1 if enabled else 0, automation_id))
    return {"automation_id": automation_id, "enabled": enabled, "scene_id": automation["scene_id"]}


# ----------------------------------------------------------------------------- energy
def get_energy_report(ctx, acting_user_id: str, home_id: str, date_from: str, date_to: str,
                      room_id: str | None = None) -> dict:
    _acting_user(ctx, acting_user_id)
    home = _home(ctx, home_id)
    _authorize(ctx, home_id, acting_user_id, "guest", VIEW_RULE)
    start = require_date(date_from, "date_from")
    end = require_date(date_to, "date_to")
    if end < start:
        raise InvalidArgumentError("date_to is before date_from")
    if (end - start).days >= MAX_REPORT_DAYS:
        raise InvalidArgumentError(f"a report covers at most {MAX_REPORT_DAYS} days")
    if room_id is not None:
        room = ctx.db.fetch_one("SELECT home_id FROM rooms WHERE room_id = ?", (room_id,))
        if room is None or room["home_id"] != home_id:
            raise NotFoundError(f"home {home_id} has no room {room_id}")
    rows = ctx.db.fetch_all(
        "SELECT d.device_id, d.name, d.room_id, d.device_type, round(sum(e.kwh), 3) AS kwh, count(*) AS days "
        "FROM energy_readings e JOIN devices d ON d.device_id = e.device_id "
        "WHERE d.home_id = ? AND e.reading_date >= ? AND e.reading_date <= ? AND (? IS NULL OR d.room_id = ?) "
        "GROUP BY d.device_id ORDER BY kwh DESC, d.device_id",
        (home_id, start.isoformat(), end.isoformat(), room_id, room_id),
    )
    tariff = home["tariff_cents_per_kwh"]
    for row in rows:
        row["cost_usd"] = round(row["kwh"] * tariff / 100, 2)
    total = round(sum(r["kwh"] for r in rows), 3)
    return {"home_id": home_id, "date_from": start.isoformat(), "date_to": end.isoformat(),
            "tariff_cents_per_kwh": tariff, "total_kwh": total, "total_cost_usd": round(total * tariff / 100, 2),
            "items": rows}


def list_energy_readings(ctx, acting_user_id: str, device_id: str, date_from: str | None = None,
                         date_to: str | None = None) -> dict:
    _acting_user(ctx, acting_user_id)
    device = _device(ctx, device_id)
    _authorize(ctx, device["home_id"], acting_user_id, "guest", VIEW_RULE)
    if "energy_metering" not in _caps(device):
        raise InvalidArgumentError(f"device {device_id} does not meter energy")
    start = optional_date(date_from, "date_from")
    end = optional_date(date_to, "date_to")
    rows = ctx.db.fetch_all(
        "SELECT reading_id, reading_date, kwh FROM energy_readings WHERE device_id = ? "
        "AND (? IS NULL OR reading_date >= ?) AND (? IS NULL OR reading_date <= ?) ORDER BY reading_date",
        (device_id, start, start, end, end),
    )
    return {"device_id": device_id, "items": rows, "total_kwh": round(sum(r["kwh"] for r in rows), 3)}


# ----------------------------------------------------------------------------- access codes
def list_access_codes(ctx, acting_user_id: str, home_id: str, device_id: str | None = None,
                      status: str | None = None, membership_id: str | None = None) -> dict:
    _acting_user(ctx, acting_user_id)
    _home(ctx, home_id)
    _authorize(ctx, home_id, acting_user_id, "admin", CODES_VIEW_RULE)
    optional_choice(status, ("active", "revoked", "expired"), "status")
    rows = ctx.db.fetch_all(
        "SELECT c.code_id, c.device_id, d.name AS device_name, c.membership_id, c.label, c.pin_code, c.status, "
        "c.valid_from, c.valid_until, c.created_by_user_id FROM access_codes c JOIN devices d ON d.device_id = c.device_id "
        "WHERE d.home_id = ? AND (? IS NULL OR c.device_id = ?) AND (? IS NULL OR c.status = ?) "
        "AND (? IS NULL OR c.membership_id = ?) ORDER BY c.code_id",
        (home_id, device_id, device_id, status, status, membership_id, membership_id),
    )
    for row in rows:
        pin = row.pop("pin_code")
        row["pin_masked"] = "*" * (len(pin) - 2) + pin[-2:]
    return {"home_id": home_id, "items": rows}


def create_access_code(ctx, acting_user_id: str, device_id: str, label: str, pin_code: str, valid_until: str | None = None,
                       membership_id: str | None = None) -> dict:
    _acting_user(ctx, acting_user_id)
    device = _device(ctx, device_id)
    _authorize(ctx, device["home_id"], acting_user_id, "admin", CREATE_CODE_RULE)
    if device["device_type"] != "lock" or "keypad" not in _caps(device):
        raise InvalidArgumentError(f"device {device_id} is not a lock with a keypad")
    clean = label.strip()
    if not fullmatch(r"\d{4,8}", pin_code) or len(clean) < 2 or len(clean) > 40:
        raise InvalidArgumentError("pin_code must be 4 to 8 digits and label 2 to 40 characters")
    until = optional_date(valid_until, "valid_until")
    if until is not None and until < ctx.today:
        raise InvalidArgumentError("valid_until must be today or later")
    if membership_id is not None:
        member = _membership(ctx, membership_id)
        if member["home_id"] != device["home_id"] or member["status"] != "active":
            raise InvalidArgumentError(f"membership {membership_id} is not an active membership of home {device['home_id']}")
        if member["role"] == "guest" and (until is None or until > member["access_expires_on"]):
            raise InvalidArgumentError(f"a guest's code must end by their access expiry {member['access_expires_on']}")
    active = ctx.db.fetch_all("SELECT code_id, pin_code FROM access_codes WHERE device_id = ? AND status = 'active'",
                              (device_id,))
    if any(c["pin_code"] == pin_code for c in active):
        raise ConflictError(f"another active code on lock {device_id} already uses this PIN")
    if len(active) >= MAX_ACTIVE_CODES:
        raise ConflictError(f"lock {device_id} already holds {MAX_ACTIVE_CODES} active codes; revoke one first")
    code_id = ctx.new_id("ACC")
    ctx.db.execute(
        "INSERT INTO access_codes (code_id, device_id, membership_id, label, pin_code, status, valid_from, valid_until, "
        "created_by_user_id) VALUES (?, ?, ?, ?, ?, 'active', ?, ?, ?)",
        (code_id, device_id, membership_id, clean, pin_code, ctx.today, until, acting_user_id),
    )
    return {"code_id": code_id, "device_id": device_id, "membership_id": membership_id, "label": clean,
            "status": "active", "valid_from": ctx.today, "valid_until": until}


def revoke_access_code(ctx, acting_user_id: str, code_id: str) -> dict:
    _acting_user(ctx, acting_user_id)
    code = require_row(
        ctx,
        "SELECT c.code_id, c.device_id, c.status, d.home_id FROM access_codes c "
        "JOIN devices d ON d.device_id = c.device_id WHERE c.code_id = ?",
        (code_id,),
        f"no access code {code_id}",
    )
    _authorize(ctx, code["home_id"], acting_user_id, "admin", REVOKE_CODE_RULE)
    if code["status"] != "active":
        raise ConflictError(f"access code {code_id} is already {code['status']}")
    ctx.db.execute("UPDATE access_codes SET status = 'revoked' WHERE code_id = ?", (code_id,))
    return {"code_id": code_id, "device_id": code["device_id"], "status": "revoked"}


# ----------------------------------------------------------------------------- alarm
def set_alarm_mode(ctx, acting_user_id: str, home_id: str, alarm_mode: str) -> dict:
    _acting_user(ctx, acting_user_id)
    home = _home(ctx, home_id)
    _authorize(ctx, home_id, acting_user_id, "member", ALARM_MODE_RULE)
    require_choice(alarm_mode, ALARM_MODES, "alarm_mode")
    if home["alarm_mode"] == alarm_mode:
        raise ConflictError(f"home {home_id} is already in alarm mode {alarm_mode}")
    if alarm_mode != "disarmed":
        open_events = ctx.db.fetch_all(
            "SELECT event_id FROM alarm_events WHERE home_id = ? AND status = 'open' ORDER BY event_id", (home_id,)
        )
        if open_events:
            ids = ", ".join(e["event_id"] for e in open_events)
            raise ConflictError(f"acknowledge the open alarm events first: {ids}")
    if alarm_mode == "away":
        unlocked = ctx.db.fetch_all(
            "SELECT device_id FROM devices WHERE home_id = ? AND device_type = 'lock' AND lock_state <> 'locked' "
            "ORDER BY device_id",
            (home_id,),
        )
        if unlocked:
            ids = ", ".join(d["device_id"] for d in unlocked)
            raise ConflictError(f"every lock must be locked before arming away; not locked: {ids}")
    ctx.db.execute("UPDATE homes SET alarm_mode = ? WHERE home_id = ?", (alarm_mode, home_id))
    return {"home_id": home_id, "alarm_mode": alarm_mode, "previous_mode": home["alarm_mode"]}


def list_alarm_events(ctx, acting_user_id: str, home_id: str, status: str | None = None,
                      event_type: str | None = None, severity: str | None = None, date_from: str | None = None,
                      date_to: str | None = None, limit: int = 25, offset: int = 0) -> dict:
    _acting_user(ctx, acting_user_id)
    _home(ctx, home_id)
    _authorize(ctx, home_id, acting_user_id, "guest", VIEW_RULE)
    require_page(limit, offset)
    optional_choice(status, ("open", "acknowledged", "resolved"), "status")
    optional_choice(event_type, ("intrusion", "smoke", "leak", "tamper", "low_battery", "device_offline"), "event_type")
    optional_choice(severity, ("critical", "warning", "info"), "severity")
    start = optional_date(date_from, "date_from")
    end = optional_date(date_to, "date_to")
    params = (home_id, status, status, event_type, event_type, severity, severity, start, start, end, end)
    rows = ctx.db.fetch_all(
        "SELECT e.event_id, e.home_id, e.device_id, d.name AS device_name, e.event_type, e.severity, e.status, "
        "e.occurred_at, e.acknowledged_by_user_id, e.acknowledged_at, e.resolved_at, e.resolution_note "
        "FROM alarm_events e LEFT JOIN devices d ON d.device_id = e.device_id WHERE e.home_id = ? "
        "AND (? IS NULL OR e.status = ?) AND (? IS NULL OR e.event_type = ?) AND (? IS NULL OR e.severity = ?) "
        "AND (? IS NULL OR substr(e.occurred_at, 1, 10) >= ?) AND (? IS NULL OR substr(e.occurred_at, 1, 10) <= ?) "
        "ORDER BY e.occurred_at DESC, e.event_id LIMIT ? OFFSET ?",
        (*params, limit, offset),
    )
    total = ctx.db.fetch_one(
        "SELECT count(*) AS n FROM alarm_events e WHERE e.home_id = ? "
        "AND (? IS NULL OR e.status = ?) AND (? IS NULL OR e.event_type = ?) AND (? IS NULL OR e.severity = ?) "
        "AND (? IS NULL OR substr(e.occurred_at, 1, 10) >= ?) AND (? IS NULL OR substr(e.occurred_at, 1, 10) <= ?)",
        params,
    )["n"]
    return {"home_id": home_id, "items": rows, "total": total}


def _event(ctx, event_id):
    return require_row(ctx, "SELECT * FROM alarm_events WHERE event_id = ?", (event_id,), f"no alarm event {event_id}")


def acknowledge_alarm_event(ctx, acting_user_id: str, event_id: str) -> dict:
    _acting_user(ctx, acting_user_id)
    event = _event(ctx, event_id)
    _authorize(ctx, event["home_id"], acting_user_id, "member", ACK_RULE)
    if event["status"] != "open":
        raise ConflictError(f"alarm event {event_id} is already {event['status']}")
    ctx.db.execute(
        "UPDATE alarm_events SET status = 'acknowledged', acknowledged_by_user_id = ?, acknowledged_at = ? "
        "WHERE event_id = ?",
        (acting_user_id, ctx.now, event_id),
    )
    return {"event_id": event_id, "home_id": event["home_id"], "status": "acknowledged",
            "acknowledged_by_user_id": acting_user_id, "acknowledged_at": ctx.now}


def resolve_alarm_event(ctx, acting_user_id: str, event_id: str, resolution_note: str) -> dict:
    _acting_user(ctx, acting_user_id)
    event = _event(ctx, event_id)
    actor = _authorize(ctx, event["home_id"], acting_user_id, "member", RESOLVE_RULE)
    require_permission(event["severity"] != "critical" or ROLES.index(actor["role"]) >= ROLES.index("admin"),
                       RESOLVE_RULE)
    note = resolution_note.strip()
    if len(note) < 3 or len(note) > 300:
        raise InvalidArgumentError("resolution_note must be 3 to 300 characters")
    if event["status"] == "open":
        raise ConflictError(f"alarm event {event_id} is still open; acknowledge it first")
    if event["status"] == "resolved":
        raise ConflictError(f"alarm event {event_id} was already resolved at {event['resolved_at']}")
    ctx.db.execute("UPDATE alarm_events SET status = 'resolved', resolved_at = ?, resolution_note = ? WHERE event_id = ?",
                   (ctx.now, note, event_id))
    return {"event_id": event_id, "home_id": event["home_id"], "status": "resolved", "resolved_at": ctx.now,
            "resolution_note": note}


# ----------------------------------------------------------------------------- firmware
def list_firmware_updates(ctx, acting_user_id: str, home_id: str | None = None, device_id: str | None = None,
                          status: str | None = None, severity: str | None = None) -> dict:
    _acting_user(ctx, acting_user_id)
    if home_id is None and device_id is None:
        raise InvalidArgumentError("give home_id, device_id or both")
    home = _home(ctx, home_id) if home_id is not None else _device(ctx, device_id)
    _authorize(ctx, home["home_id"], acting_user_id, "guest", VIEW_RULE)
    optional_choice(status, ("available", "scheduled", "installed", "failed"), "status")
    optional_choice(severity, ("security", "bugfix", "feature"), "severity")
    rows = ctx.db.fetch_all(
        "SELECT f.update_id, f.device_id, d.name AS device_name, d.home_id, d.firmware_version AS current_version, "
        "f.from_version, f.to_version, f.severity, f.status, f.released_on, f.scheduled_for, f.completed_at "
        "FROM firmware_updates f JOIN devices d ON d.device_id = f.device_id "
        "WHERE (? IS NULL OR d.home_id = ?) AND (? IS NULL OR f.device_id = ?) AND (? IS NULL OR f.status = ?) "
        "AND (? IS NULL OR f.severity = ?) ORDER BY f.update_id",
        (home_id, home_id, device_id, device_id, status, status, severity, severity),
    )
    return {"items": rows}


def _update(ctx, update_id):
    return require_row(
        ctx,
        "SELECT f.*, d.home_id, d.firmware_version, d.connectivity, d.battery_pct FROM firmware_updates f "
        "JOIN devices d ON d.device_id = f.device_id WHERE f.update_id = ?",
        (update_id,),
        f"no firmware update {update_id}",
    )


def schedule_firmware_update(ctx, acting_user_id: str, update_id: str, scheduled_for: str) -> dict:
    _acting_user(ctx, acting_user_id)
    update = _update(ctx, update_id)
    _authorize(ctx, update["home_id"], acting_user_id, "admin", SCHEDULE_FW_RULE)
    if not fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", scheduled_for):
        raise InvalidArgumentError("scheduled_for must look like YYYY-MM-DDTHH:MM")
    try:
        when = datetime.fromisoformat(scheduled_for + ":00")
    except ValueError:
        raise InvalidArgumentError(f"scheduled_for {scheduled_for!r} is not a real date and time") from None
    now = datetime.fromisoformat(ctx.now)
    if when <= now or when > now + timedelta(days=MAX_SCHEDULE_DAYS):
        raise InvalidArgumentError(f"scheduled_for must be in the future and within {MAX_SCHEDULE_DAYS} days")
    if update["status"] == "installed":
        raise ConflictError(f"firmware update {update_id} is already installed")
    if update["firmware_version"] != update["from_version"]:
        raise ConflictError(f"device {update['device_id']} runs {update['firmware_version']}, but this update applies "
                            f"to {update['from_version']}")
    stamp = when.isoformat()
    ctx.db.execute("UPDATE firmware_updates SET status = 'scheduled', scheduled_for = ?, completed_at = NULL "
                   "WHERE update_id = ?", (stamp, update_id))
    return {"update_id": update_id, "device_id": update["device_id"], "status": "scheduled", "scheduled_for": stamp,
            "previous_status": update["status"]}


def install_firmware_update(ctx, acting_user_id: str, update_id: str) -> dict:
    _acting_user(ctx, acting_user_id)
    update = _update(ctx, update_id)
    _authorize(ctx, update["home_id"], acting_user_id, "admin", INSTALL_FW_RULE)
    if update["status"] == "installed":
        raise ConflictError(f"firmware update {update_id} is already installed")
    if update["connectivity"] != "online":
        raise ConflictError(f"device {update['device_id']} is offline; it must be online to install firmware")
    if update["firmware_version"] != update["from_version"]:
        raise ConflictError(f"device {update['device_id']} runs {update['firmware_version']}, but this update applies "
                            f"to {update['from_version']}")
    if update["battery_pct"] is not None and update["battery_pct"] < MIN_FIRMWARE_BATTERY:
        raise ConflictError(f"device battery is at {update['battery_pct']}%; firmware needs at least "
                            f"{MIN_FIRMWARE_BATTERY}%")
    ctx.db.execute("UPDATE firmware_updates SET status = 'installed', completed_at = ? WHERE update_id = ?",
                   (ctx.now, update_id))
    ctx.db.execute("UPDATE devices SET firmware_version = ? WHERE device_id = ?", (update["to_version"], update["device_id"]))
    return {"update_id": update_id, "device_id": update["device_id"], "status": "installed",
            "firmware_version": update["to_version"], "previous_version": update["from_version"],
            "completed_at": ctx.now}
