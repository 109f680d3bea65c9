"""Deterministic seed for the smart_home domain: writes seed.json beside this file.

Run: python generate_seed.py
Everything comes from random.Random(SEED) and fixed dates around the domain clock
(2026-04-14T09:30:00); there is no wall clock, so the output is identical on every run.
Near neighbours are made on purpose: people with the same name (told apart by date of birth,
email and phone), homes with the same name,
one owner with several homes, rooms and devices with similar names, scenes and access
codes in different states.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from pathlib import Path

SEED = 20260414
CLOCK = datetime(2026, 4, 14, 9, 30, 0)
TODAY = CLOCK.date()

rng = random.Random(SEED)
# Facts added after the first release (birth dates, varied notes) come from their own stream, so that
# every row the first release had keeps its values.
extra = random.Random(SEED + 1)


def ident(prefix: str, n: int) -> str:
    return f"{prefix}-{n:05d}"


def day(offset: int) -> str:
    return (TODAY + timedelta(days=offset)).isoformat()


def date_of(text: str):
    return datetime.fromisoformat(text).date()


def stamp(minutes_before: int) -> str:
    return (CLOCK - timedelta(minutes=minutes_before)).isoformat(timespec="seconds")


# ----------------------------------------------------------------------------- users
PEOPLE = [
    "Daniel Okafor", "Priya Raman", "Marcus Lindqvist", "Hannah Whitfield", "Tomas Herrera",
    "Grace Nakamura", "Owen Gallagher", "Leila Haddad", "Samuel Adeyemi", "Ingrid Solberg",
    "Rafael Moreno", "Chloe Beaumont", "Victor Petrov", "Amara Nwosu", "Julian Castillo",
    "Mei Lin Zhou", "Patrick Doyle", "Nadia Rahman", "Ethan Brooks", "Sofia Marquez",
    "Benjamin Hart", "Yuki Tanaka", "Lucas Ferreira", "Olivia Kowalski", "Isaac Mensah",
    "Freya Andersen", "Diego Alvarez", "Zara Qureshi", "Henry Caldwell", "Ava Schneider",
    "Noah Bergstrom", "Elena Rossi", "Kwame Asante", "Maya Goldberg", "Theo Laurent",
    "Ruth Ellison",
    # near neighbours: same or nearly the same names with other ids
    "Daniel Okafor", "Priya Ramanathan", "Ethan Brookes", "Sofia Marquez", "Grace Nakamura",
    "Hannah Whitfield-Ross",
]
EMAIL_DOMAINS = ["mailbox.org", "fastmail.com", "proton.me", "outlook.com", "gmail.com", "icloud.com"]
AREA_CODES = ["503", "206", "303", "512", "312", "612", "617", "919", "802", "828", "608", "916", "520", "541", "912"]

users = []
used_emails: set[str] = set()
for i, name in enumerate(PEOPLE, start=1):
    first, *rest = name.lower().replace("-", " ").split()
    last = rest[-1] if rest else "home"
    patterns = [f"{first}.{last}", f"{first[0]}{last}", f"{first}{last[0]}", f"{first}.{last}{rng.randint(2, 89)}"]
    email = None
    for local in patterns:
        candidate = f"{local}@{rng.choice(EMAIL_DOMAINS)}"
        if candidate not in used_emails:
            email = candidate
            break
    used_emails.add(email)
    phone = f"+1-{rng.choice(AREA_CODES)}-{rng.randint(201, 989)}-{rng.randint(1000, 9999)}"
    status = "suspended" if i in (20, 40, 27) else "active"
    created = day(-rng.randint(120, 1400))
    born = TODAY.replace(year=TODAY.year - extra.randint(23, 78)) - timedelta(days=extra.randint(0, 364))
    users.append({"user_id": ident("USR", i), "full_name": name, "email": email, "phone": phone,
                  "date_of_birth": born.isoformat(), "status": status, "created_on": created})
assert len({u["phone"] for u in users}) == len(users), "phones are unique"
for a in users:
    for b in users:
        if a is not b and a["full_name"] == b["full_name"]:
            assert a["date_of_birth"] != b["date_of_birth"], "look-alikes differ by date of birth"


# ----------------------------------------------------------------------------- homes
CITIES = [
    ("Portland", "OR", "972", "America/Los_Angeles", 14.2),
    ("Seattle", "WA", "981", "America/Los_Angeles", 12.6),
    ("Denver", "CO", "802", "America/Denver", 15.1),
    ("Austin", "TX", "787", "America/Chicago", 13.4),
    ("Chicago", "IL", "606", "America/Chicago", 16.8),
    ("Minneapolis", "MN", "554", "America/Chicago", 15.9),
    ("Boston", "MA", "021", "America/New_York", 31.5),
    ("Raleigh", "NC", "276", "America/New_York", 13.9),
    ("Burlington", "VT", "054", "America/New_York", 22.4),
    ("Asheville", "NC", "288", "America/New_York", 14.7),
    ("Madison", "WI", "537", "America/Chicago", 18.3),
    ("Sacramento", "CA", "958", "America/Los_Angeles", 29.8),
    ("Tucson", "AZ", "857", "America/Phoenix", 14.9),
    ("Bend", "OR", "977", "America/Los_Angeles", 13.1),
    ("Savannah", "GA", "314", "America/New_York", 15.6),
]
STREETS = ["Maple", "Oak", "Cedar", "Willow", "Juniper", "Alder", "Birch", "Magnolia", "Chestnut", "Hawthorne",
           "Linden", "Spruce", "Aspen", "Laurel", "Sycamore", "Elm", "Hemlock", "Poplar"]
SUFFIXES = ["Street", "Avenue", "Lane", "Drive", "Court", "Road", "Way", "Place"]

# (name, owner user number, kind) -- kind drives rooms and devices
HOME_PLAN = [
    ("Maple Street House", 1, "house"), ("Lake Cabin", 2, "cabin"), ("Downtown Loft", 3, "apartment"),
    ("Rental Unit A", 4, "apartment"), ("Rental Unit B", 4, "apartment"), ("Cedar Ridge", 5, "house"),
    ("Lake Cabin", 6, "cabin"), ("Beach Bungalow", 7, "house"), ("The Farmhouse", 8, "house"),
    ("Studio on Fifth", 9, "apartment"), ("Hillside Home", 10, "house"), ("Mom's Place", 11, "house"),
    ("Garden Flat", 12, "apartment"), ("Willow Creek House", 13, "house"), ("Downtown Loft", 14, "apartment"),
    ("Ski Chalet", 2, "cabin"), ("Brick Townhouse", 15, "house"), ("Riverside Condo", 16, "apartment"),
    ("Oak Hollow", 17, "house"), ("Sunset Duplex", 18, "house"), ("Rental Unit C", 4, "apartment"),
    ("Harbor View Condo", 19, "apartment"), ("Prairie House", 21, "house"), ("Desert Casita", 22, "cabin"),
    ("Maple Street House", 37, "house"), ("Grandpa's Cottage", 23, "cabin"), ("Juniper Court Home", 24, "house"),
    ("Canal Street Apartment", 25, "apartment"), ("Old Mill Cabin", 26, "cabin"), ("Pine Terrace", 28, "house"),
]
ALARM_MODES = ["disarmed"] * 5 + ["home"] * 2 + ["away"] * 2 + ["night"]

homes = []
for i, (name, owner, kind) in enumerate(HOME_PLAN, start=1):
    city, region, zip3, tz, tariff = CITIES[(i * 7) % len(CITIES)]
    street = f"{rng.randint(12, 4890)} {rng.choice(STREETS)} {rng.choice(SUFFIXES)}"
    if kind == "apartment":
        street += f", Apt {rng.randint(2, 24)}{rng.choice('ABCD')}"
    homes.append({
        "home_id": ident("HOME", i), "name": name, "street_address": street, "city": city, "region": region,
        "postal_code": f"{zip3}{rng.randint(10, 99)}", "timezone": tz, "owner_user_id": ident("USR", owner),
        "alarm_mode": ALARM_MODES[(i * 3) % len(ALARM_MODES)],
        "tariff_cents_per_kwh": round(tariff + rng.choice([-0.8, -0.3, 0.0, 0.4, 1.1]), 1),
        "created_on": day(-rng.randint(60, 900)),
        "_kind": kind,
    })

# ----------------------------------------------------------------------------- memberships
memberships = []


def add_membership(home_no: int, user_no: int, role: str, status: str = "active", expires: str | None = None,
                   added: str | None = None) -> str:
    mid = ident("MBR", len(memberships) + 1)
    memberships.append({"membership_id": mid, "home_id": ident("HOME", home_no), "user_id": ident("USR", user_no),
                        "role": role, "status": status, "access_expires_on": expires,
                        "added_on": added or day(-rng.randint(10, 400))})
    return mid


for i, home in enumerate(homes, start=1):
    add_membership(i, int(home["owner_user_id"][4:]), "owner", added=home["created_on"])

EXTRA_MEMBERS = [
    # (home, user, role, status, guest expiry offset in days or None)
    (1, 29, "admin", "active", None), (1, 30, "member", "active", None), (1, 37, "guest", "active", 12),
    (1, 31, "guest", "active", -5), (2, 1, "admin", "active", None), (2, 32, "member", "active", None),
    (3, 33, "member", "active", None), (3, 38, "guest", "active", 30), (4, 34, "guest", "active", 45),
    (4, 35, "member", "revoked", None), (5, 36, "guest", "active", 20), (5, 20, "member", "active", None),
    (6, 39, "admin", "active", None), (6, 41, "member", "active", None), (6, 42, "guest", "revoked", -30),
    (7, 5, "member", "active", None), (8, 9, "admin", "active", None), (8, 10, "guest", "active", 3),
    (9, 12, "member", "active", None), (9, 13, "member", "active", None), (10, 14, "guest", "active", -1),
    (11, 15, "admin", "active", None), (11, 16, "member", "active", None), (12, 1, "member", "active", None),
    (12, 37, "admin", "active", None), (13, 18, "member", "active", None), (14, 19, "admin", "active", None),
    (14, 21, "guest", "active", 60), (15, 22, "member", "active", None), (16, 6, "admin", "active", None),
    (16, 1, "member", "active", None), (17, 23, "member", "active", None), (17, 40, "guest", "active", 15),
    (18, 24, "admin", "active", None), (19, 25, "member", "active", None), (19, 26, "member", "revoked", None),
    (20, 27, "member", "active", None), (20, 28, "admin", "active", None), (21, 33, "guest", "active", 25),
    (21, 34, "member", "active", None), (22, 35, "admin", "active", None), (23, 36, "member", "active", None),
    (24, 38, "member", "active", None), (25, 1, "guest", "active", 10), (25, 41, "admin", "active", None),
    (26, 11, "admin", "active", None), (26, 12, "member", "active", None), (27, 39, "member", "active", None),
    (28, 42, "guest", "active", 7), (29, 3, "admin", "active", None), (30, 31, "member", "active", None),
    (30, 32, "guest", "active", 40), (3, 29, "guest", "revoked", -60), (7, 8, "guest", "active", -12),
]
for home_no, user_no, role, status, offset in EXTRA_MEMBERS:
    add_membership(home_no, user_no, role, status, day(offset) if offset is not None else None)

# ----------------------------------------------------------------------------- rooms
ROOM_PLANS = {
    "house": [("Entryway", 0, "hallway"), ("Living Room", 0, "living"), ("Kitchen", 0, "kitchen"),
              ("Primary Bedroom", 1, "bedroom"), ("Kids' Bedroom", 1, "bedroom"), ("Home Office", 1, "office"),
              ("Garage", 0, "garage"), ("Basement", -1, "basement"), ("Back Porch", 0, "outdoor"),
              ("Dining Room", 0, "dining")],
    "apartment": [("Entryway", 0, "hallway"), ("Living Room", 0, "living"), ("Kitchen", 0, "kitchen"),
                  ("Bedroom", 0, "bedroom"), ("Bathroom", 0, "bathroom"), ("Study Nook", 0, "office")],
    "cabin": [("Front Porch", 0, "outdoor"), ("Great Room", 0, "living"), ("Kitchen", 0, "kitchen"),
              ("Loft Bedroom", 1, "bedroom"), ("Mudroom", 0, "hallway"), ("Crawl Space", -1, "basement")],
}
rooms = []
home_rooms: dict[int, list[dict]] = {}
for i, home in enumerate(homes, start=1):
    plan = ROOM_PLANS[home["_kind"]]
    count = rng.randint(4, 5)
    chosen = plan[:3] + rng.sample(plan[3:], count - 3)
    home_rooms[i] = []
    for name, floor, rtype in chosen:
        room = {"room_id": ident("ROOM", len(rooms) + 1), "home_id": home["home_id"], "name": name, "floor": floor,
                "room_type": rtype}
        rooms.append(room)
        home_rooms[i].append(room)

# ----------------------------------------------------------------------------- devices
MODELS = {
    "light": [("Lumora", "A19 Color Bulb", "on_off,dimming", "2.4.1"), ("Lumora", "Filament Bulb", "on_off,dimming", "2.4.1"),
              ("Brightway", "Basic Bulb", "on_off", "1.8.0"), ("Brightway", "In-Wall Switch S2", "on_off", "3.1.2"),
              ("Brightway", "Dimmer Switch D1", "on_off,dimming", "3.1.2")],
    "plug": [("Voltic", "Mini Plug", "on_off", "1.2.0"), ("Voltic", "Energy Plug", "on_off,energy_metering", "1.6.3")],
    "thermostat": [("Hearthly", "T3 Smart Thermostat", "heating,cooling,energy_metering", "5.0.2"),
                   ("Hearthly", "Radiator Valve", "heating", "1.3.1"),
                   ("Thermaris", "Smart 2", "heating,cooling", "4.2.0")],
    "lock": [("Bolton", "Keypad Deadbolt", "lock,keypad", "2.9.4"), ("Bolton", "Retrofit Lock", "lock", "1.4.0"),
             ("Securo", "K5 Touch", "lock,keypad", "6.1.0")],
    "camera": [("Sentrix", "Outdoor 2K", "on_off,motion_detection", "3.3.0"), ("Sentrix", "Indoor Cam", "on_off", "3.3.0")],
    "sensor": [("Nimbus", "Motion Sensor", "motion", "1.1.5"), ("Nimbus", "Door/Window Sensor", "contact", "1.1.5"),
               ("Nimbus", "Leak Sensor", "leak", "1.0.9"), ("Nimbus", "Smoke Detector", "smoke", "2.0.1"),
               ("Nimbus", "Climate Sensor", "temperature", "1.1.5")],
}
OLDER = {"2.4.1": "2.3.0", "1.8.0": "1.7.2", "3.1.2": "3.0.4", "1.2.0": "1.1.9", "1.6.3": "1.5.0", "5.0.2": "4.8.1",
         "1.3.1": "1.2.7", "4.2.0": "4.1.3", "2.9.4": "2.8.0", "1.4.0": "1.3.2", "6.1.0": "6.0.5", "3.3.0": "3.2.1",
         "1.1.5": "1.1.2", "1.0.9": "1.0.7", "2.0.1": "1.9.8"}
NEWER = {"2.4.1": "2.5.0", "1.8.0": "1.9.0", "3.1.2": "3.2.0", "1.2.0": "1.2.4", "1.6.3": "1.7.0", "5.0.2": "5.1.0",
         "1.3.1": "1.4.0", "4.2.0": "4.3.1", "2.9.4": "3.0.0", "1.4.0": "1.4.2", "6.1.0": "6.2.0", "3.3.0": "3.4.0",
         "1.1.5": "1.2.0", "1.0.9": "1.1.0", "2.0.1": "2.1.0"}


def room_of(home_no: int, *types: str) -> dict | None:
    for rtype in types:
        for room in home_rooms[home_no]:
            if room["room_type"] == rtype:
                return room
    return None


devices = []
home_devices: dict[int, list[dict]] = {}


def add_device(home_no: int, room: dict | None, name: str, dtype: str, model_index: int | None = None) -> dict:
    options = MODELS[dtype]
    manufacturer, model, caps, version = options[model_index if model_index is not None else rng.randrange(len(options))]
    if rng.random() < 0.2:
        version = OLDER[version]
    offline = rng.random() < 0.11
    device = {
        "device_id": ident("DEV", len(devices) + 1), "home_id": ident("HOME", home_no),
        "room_id": room["room_id"] if room else None, "name": name, "device_type": dtype,
        "manufacturer": manufacturer, "model": model, "capabilities": caps, "firmware_version": version,
        "connectivity": "offline" if offline else "online", "power_state": None, "brightness_pct": None,
        "hvac_mode": None, "target_temp_c": None, "lock_state": None, "battery_pct": None,
        "installed_on": day(-rng.randint(20, 700)),
        "last_seen_at": stamp(rng.randint(60 * 24 * 2, 60 * 24 * 9)) if offline else stamp(rng.randint(0, 50)),
    }
    if dtype in ("light", "plug", "camera"):
        device["power_state"] = "on" if rng.random() < (0.85 if dtype == "camera" else 0.4) else "off"
    if dtype == "light" and "dimming" in caps:
        device["brightness_pct"] = rng.choice([20, 35, 50, 60, 75, 80, 100])
    if dtype == "thermostat":
        device["hvac_mode"] = rng.choice(["heat", "heat", "auto", "off"] if "cooling" in caps else ["heat", "heat", "off"])
        if device["hvac_mode"] == "auto" and "cooling" not in caps:
            device["hvac_mode"] = "heat"
        device["target_temp_c"] = rng.choice([18.0, 19.0, 19.5, 20.0, 20.5, 21.0, 21.5, 22.0])
    if dtype == "lock":
        device["lock_state"] = rng.choice(["locked"] * 6 + ["unlocked"] * 2 + ["jammed"])
    if dtype in ("lock", "sensor"):
        device["battery_pct"] = rng.choice([8, 14, 18, 26, 41, 55, 63, 72, 88, 95, 100])
    devices.append(device)
    home_devices.setdefault(home_no, []).append(device)
    return device


for i, home in enumerate(homes, start=1):
    kind = home["_kind"]
    entry = room_of(i, "hallway", "outdoor", "living")
    living = room_of(i, "living")
    kitchen = room_of(i, "kitchen")
    bedroom = room_of(i, "bedroom")
    add_device(i, entry, "Front Door Lock", "lock", 0 if i % 4 else 1)
    add_device(i, living, "Living Room Lights" if kind != "cabin" else "Great Room Lights", "light")
    add_device(i, entry if kind != "apartment" else living, "Main Thermostat", "thermostat", 0 if i % 3 == 0 else rng.choice([1, 2]))
    if kitchen and rng.random() < 0.5:
        add_device(i, kitchen, rng.choice(["Kitchen Pendants", "Kitchen Lights", "Under-Cabinet Lights"]), "light")
    if bedroom and rng.random() < 0.45:
        add_device(i, bedroom, rng.choice(["Bedside Lamp", "Bedroom Lamp", "Reading Lamp"]), "light",
                   rng.choice([0, 1, 2]))
    if rng.random() < 0.6:
        plug_room = kitchen if rng.random() < 0.5 else living
        add_device(i, plug_room, rng.choice(["Coffee Maker Plug", "Space Heater Plug", "TV Plug", "Kettle Plug",
                                             "Dehumidifier Plug"]), "plug", 1 if rng.random() < 0.55 else 0)
    if kind == "house" and rng.random() < 0.55:
        add_device(i, room_of(i, "outdoor", "garage", "hallway"),
                   rng.choice(["Driveway Camera", "Porch Camera", "Backyard Camera"]), "camera", 0)
    if kind == "apartment" and rng.random() < 0.35:
        add_device(i, living, "Living Room Camera", "camera", 1)
    sensor_choice = rng.sample([("Hallway Motion", 0, ("hallway", "living")), ("Back Door Contact", 1, ("kitchen", "hallway")),
                                ("Leak Sensor", 2, ("basement", "bathroom", "kitchen")),
                                ("Smoke Detector", 3, ("hallway", "kitchen")), ("Climate Sensor", 4, ("bedroom", "living"))],
                               1 if rng.random() < 0.6 else 2)
    for name, model_index, types in sensor_choice:
        room = room_of(i, *types)
        add_device(i, room, name if room is None else name, "sensor", model_index)
    if kind == "house" and rng.random() < 0.3:
        add_device(i, room_of(i, "garage", "kitchen", "hallway"), "Back Door Lock", "lock", 0)
    if rng.random() < 0.12:
        add_device(i, None, "Spare Smart Plug", "plug", 0)  # not yet placed in a room

# a home armed away has every door locked (set_alarm_mode refuses otherwise)
away_homes = {h["home_id"] for h in homes if h["alarm_mode"] == "away"}
for device in devices:
    if device["device_type"] == "lock" and device["home_id"] in away_homes:
        device["lock_state"] = "locked"

# ----------------------------------------------------------------------------- scenes and actions
scenes = []
scene_actions = []
home_scenes: dict[int, list[dict]] = {}


def first_device(home_no: int, dtype: str, cap: str | None = None) -> dict | None:
    for device in home_devices[home_no]:
        if device["device_type"] == dtype and (cap is None or cap in device["capabilities"].split(",")):
            return device
    return None


def all_devices(home_no: int, dtype: str) -> list[dict]:
    return [d for d in home_devices[home_no] if d["device_type"] == dtype]


def scene_steps(home_no: int, template: str) -> list[tuple[dict, str, float | None]]:
    steps: list[tuple[dict, str, float | None]] = []
    lights = all_devices(home_no, "light")
    thermostat = first_device(home_no, "thermostat")
    lock = first_device(home_no, "lock")
    if template == "Good Morning":
        for light in lights[:2]:
            if "dimming" in light["capabilities"]:
                steps.append((light, "set_brightness", 70.0))
            else:
                steps.append((light, "turn_on", None))
        steps.append((thermostat, "set_temperature", 21.0))
    elif template in ("Good Night", "Goodnight"):
        for light in lights[:2]:
            steps.append((light, "turn_off", None))
        steps.append((lock, "lock", None))
        steps.append((thermostat, "set_temperature", 18.0))
    elif template == "Away Mode":
        for light in lights[:2]:
            steps.append((light, "turn_off", None))
        for lk in all_devices(home_no, "lock"):
            steps.append((lk, "lock", None))
        steps.append((thermostat, "set_temperature", 16.0))
    elif template == "Movie Night":
        for light in lights[:2]:
            steps.append((light, "set_brightness", 20.0) if "dimming" in light["capabilities"] else (light, "turn_off", None))
        plug = first_device(home_no, "plug")
        if plug:
            steps.append((plug, "turn_on", None))
    elif template == "Welcome Home":
        steps.append((lock, "unlock", None))
        steps.append((lights[0], "turn_on", None))
        steps.append((thermostat, "set_temperature", 20.5))
    return steps[:12]


SCENE_TEMPLATES = ["Good Morning", "Good Night", "Away Mode", "Movie Night", "Welcome Home"]
for i, home in enumerate(homes, start=1):
    names = rng.sample(SCENE_TEMPLATES, 1 if i % 2 == 0 else 2)
    if i in (1, 6, 11, 17):
        names.append("Goodnight")
    home_scenes[i] = []
    admins = [m for m in memberships if m["home_id"] == home["home_id"] and m["role"] in ("owner", "admin")]
    for name in names:
        disabled = name == "Goodnight" or (i == 9 and name == names[0])
        ran = None if rng.random() < 0.2 else stamp(rng.randint(60, 60 * 24 * 12))
        scene = {"scene_id": ident("SCN", len(scenes) + 1), "home_id": home["home_id"], "name": name,
                 "status": "disabled" if disabled else "active", "created_by_user_id": rng.choice(admins)["user_id"],
                 "created_on": day(-rng.randint(15, 300)), "last_run_at": ran}
        scenes.append(scene)
        home_scenes[i].append(scene)
        for pos, (device, command, value) in enumerate(scene_steps(i, name), start=1):
            scene_actions.append({"action_id": ident("SACT", len(scene_actions) + 1), "scene_id": scene["scene_id"],
                                  "position": pos, "device_id": device["device_id"], "command": command, "value": value})

# ----------------------------------------------------------------------------- automations
automations = []


def last_fired(trigger: str, at: str | None) -> str:
    """When an enabled automation last ran: its time today or yesterday, sunset last evening."""
    if trigger == "time":
        hour, minute = map(int, at.split(":"))
        fired = CLOCK.replace(hour=hour, minute=minute, second=0)
        if fired >= CLOCK:
            fired -= timedelta(days=1)
        return fired.isoformat(timespec="seconds")
    if trigger == "sunset":
        return (CLOCK - timedelta(days=1)).replace(hour=19, minute=rng.randint(38, 52)).isoformat(timespec="seconds")
    return stamp(rng.randint(60 * 8, 60 * 24 * 3))
for i, home in enumerate(homes, start=1):
    admins = [m for m in memberships if m["home_id"] == home["home_id"] and m["role"] in ("owner", "admin")]
    for scene in home_scenes[i]:
        if scene["name"] == "Movie Night":
            continue
        motion = next((d for d in home_devices[i] if d["capabilities"] in ("motion", "contact")), None)
        if scene["name"] == "Good Morning":
            spec = ("Weekday wake-up", "time", rng.choice(["06:30", "06:45", "07:00"]), None, "weekdays", None)
        elif scene["name"] in ("Good Night", "Goodnight"):
            spec = ("Lights out at bedtime", "time", rng.choice(["22:30", "23:00", "23:15"]), None, "daily", None)
        elif scene["name"] == "Away Mode":
            spec = ("Secure when armed away", "sunset", None, None, "daily", "away")
        else:  # Welcome Home
            if motion is None:
                continue
            spec = ("Arrival lights", "device", None, motion["device_id"], "daily", "disarmed")
        name, trigger, at, dev, days, cond = spec
        enabled = 0 if scene["status"] == "disabled" or rng.random() < 0.15 else 1
        automations.append({
            "automation_id": ident("AUT", len(automations) + 1), "home_id": home["home_id"], "name": name,
            "trigger_type": trigger, "trigger_time": at, "trigger_device_id": dev, "days": days,
            "condition_alarm_mode": cond, "scene_id": scene["scene_id"], "enabled": enabled,
            "created_by_user_id": rng.choice(admins)["user_id"],
            "last_triggered_at": None if not enabled else last_fired(trigger, at),
        })
    if i % 4 == 1:
        sunset_scene = home_scenes[i][0]
        automations.append({
            "automation_id": ident("AUT", len(automations) + 1), "home_id": home["home_id"], "name": "Porch light at sunset",
            "trigger_type": "sunset", "trigger_time": None, "trigger_device_id": None, "days": "daily",
            "condition_alarm_mode": None, "scene_id": sunset_scene["scene_id"],
            "enabled": 1 if sunset_scene["status"] == "active" else 0,
            "created_by_user_id": rng.choice(admins)["user_id"],
            "last_triggered_at": last_fired("sunset", None) if sunset_scene["status"] == "active" else None,
        })

# ----------------------------------------------------------------------------- energy readings
energy_readings = []
metering = [d for d in devices if "energy_metering" in d["capabilities"].split(",")]
for device in metering:
    base = rng.uniform(6.0, 19.0) if device["device_type"] == "thermostat" else rng.uniform(0.15, 2.6)
    for offset in range(-6, 0):  # 2026-04-08 .. 2026-04-13
        if device["connectivity"] == "offline" and offset > -3:
            continue
        kwh = round(max(0.0, base * rng.uniform(0.7, 1.3)), 3)
        energy_readings.append({"reading_id": ident("ENR", len(energy_readings) + 1), "device_id": device["device_id"],
                                "reading_date": day(offset), "kwh": kwh})

# ----------------------------------------------------------------------------- access codes
access_codes = []
LABELS = ["Dog walker", "Cleaner (Tuesdays)", "Babysitter", "Grandma", "Neighbour - plants", "Contractor",
          "Handyman", "Nanny", "Pet sitter", "Family code", "Spare code", "Window cleaner"]
keypad_locks = [d for d in devices if "keypad" in d["capabilities"].split(",")]
for lock in keypad_locks:
    home_no = int(lock["home_id"][5:])
    home_members = [m for m in memberships if m["home_id"] == lock["home_id"]]
    admins = [m for m in home_members if m["role"] in ("owner", "admin")]
    count = rng.choice([0, 1, 1, 2, 2, 3])
    for _ in range(count):
        status = rng.choice(["active", "active", "active", "revoked", "expired"])
        linked = [m for m in home_members if m["role"] != "owner"]
        membership = rng.choice(linked) if linked and rng.random() < 0.45 else None
        if membership is not None:
            label = users[int(membership["user_id"][4:]) - 1]["full_name"].split()[0]
            if membership["role"] == "guest":
                until = membership["access_expires_on"]
            else:
                until = None
            if membership["status"] == "revoked":
                status = "revoked"
        else:
            label = rng.choice(LABELS)
            until = day(rng.randint(5, 120)) if rng.random() < 0.5 else None
        start = day(-rng.randint(5, 200))
        if status == "expired":
            until = day(-rng.randint(1, 4))
            start = min(start, day(-10))
        if until is not None and until < start:
            until = start
        if status == "active" and until is not None and until < day(0):
            status = "expired"  # its last valid day has passed
        pin = "".join(str(rng.randint(0, 9)) for _ in range(rng.choice([4, 4, 6])))
        access_codes.append({"code_id": ident("ACC", len(access_codes) + 1), "device_id": lock["device_id"],
                             "membership_id": membership["membership_id"] if membership else None, "label": label,
                             "pin_code": pin, "status": status, "valid_from": start, "valid_until": until,
                             "created_by_user_id": rng.choice(admins)["user_id"]})

# ----------------------------------------------------------------------------- alarm events
alarm_events = []
RESOLUTION_NOTES = {
    "intrusion": ["Family member came home early; false alarm.", "Dog walker arrived before the code window opened.",
                  "Window left ajar, wind moved the curtain; closed and latched.",
                  "Checked the camera footage: it was the cleaner. No one else entered."],
    "smoke": ["Burnt toast, kitchen ventilated.", "Steam from the shower drifted into the hallway; detector moved.",
              "Searing steaks on the stove; opened the windows and reset the detector.",
              "Candle too close to the detector; no fire."],
    "leak": ["Water heater drain valve tightened.", "Dishwasher hose reseated, floor dried.",
             "Condensation under the washing machine; added a drip tray.", "Plumber replaced the cracked supply line."],
    "tamper": ["Cover reseated after cleaning.", "Camera knocked by a ladder during gutter cleaning; remounted.",
               "Kids moved the camera while playing; put back on its bracket."],
    "low_battery": ["Batteries replaced.", "Swapped in two new AA cells.", "Recharged the battery pack overnight."],
    "device_offline": ["Router restarted, device back online.", "Moved the mesh extender closer; signal restored.",
                       "Power strip had been switched off; device reconnected.", "Re-paired after the ISP swap."],
}


def add_event(device: dict | None, home_id: str, etype: str, severity: str, status: str, minutes_ago: int) -> None:
    members = [m for m in memberships if m["home_id"] == home_id and m["role"] != "guest" and m["status"] == "active"]
    ack_by = ack_at = resolved = note = None
    if status != "open":
        ack_by = rng.choice(members)["user_id"]
        ack_at = stamp(minutes_ago - rng.randint(3, 40))
    if status == "resolved":
        resolved = stamp(minutes_ago - rng.randint(45, 300))
        note = extra.choice(RESOLUTION_NOTES[etype])
    alarm_events.append({"event_id": ident("ALM", len(alarm_events) + 1), "home_id": home_id,
                         "device_id": device["device_id"] if device else None, "event_type": etype, "severity": severity,
                         "status": status, "occurred_at": stamp(minutes_ago), "acknowledged_by_user_id": ack_by,
                         "acknowledged_at": ack_at, "resolved_at": resolved, "resolution_note": note})


for device in devices:
    if device["battery_pct"] is not None and device["battery_pct"] < 20:
        add_event(device, device["home_id"], "low_battery", "warning",
                  rng.choice(["open", "open", "acknowledged"]), rng.randint(600, 60 * 24 * 6))
    if device["connectivity"] == "offline" and rng.random() < 0.6:
        add_event(device, device["home_id"], "device_offline", "warning",
                  rng.choice(["open", "acknowledged", "resolved"]), rng.randint(60 * 24 * 2, 60 * 24 * 8))
for device in devices:
    caps = device["capabilities"]
    if caps == "contact" or caps == "motion":
        if rng.random() < 0.5:
            add_event(device, device["home_id"], "intrusion", "critical",
                      rng.choice(["resolved", "resolved", "acknowledged", "open"]), rng.randint(300, 60 * 24 * 25))
    elif caps in ("leak", "smoke"):
        if rng.random() < 0.6:
            add_event(device, device["home_id"], "leak" if caps == "leak" else "smoke", "critical",
                      rng.choice(["resolved", "resolved", "acknowledged", "open"]), rng.randint(300, 60 * 24 * 25))
    elif device["device_type"] == "camera" and rng.random() < 0.25:
        add_event(device, device["home_id"], "tamper", "warning", rng.choice(["resolved", "open"]),
                  rng.randint(300, 60 * 24 * 20))

# ----------------------------------------------------------------------------- firmware updates
firmware_updates = []
SEVERITY = {"2.5.0": "feature", "1.9.0": "bugfix", "3.2.0": "security", "1.2.4": "bugfix", "1.7.0": "feature",
            "5.1.0": "security", "1.4.0": "bugfix", "4.3.1": "security", "3.0.0": "security", "1.4.2": "bugfix",
            "6.2.0": "feature", "3.4.0": "security", "1.2.0": "bugfix", "1.1.0": "security", "2.1.0": "security"}
for device in devices:
    version = device["firmware_version"]
    current = NEWER.get(version) is None
    if version in OLDER.values():  # behind: a pending update to the model's current version
        latest = next(k for k, v in OLDER.items() if v == version)
        roll = rng.random()
        status = "available" if roll < 0.7 else ("scheduled" if roll < 0.85 else "failed")
        firmware_updates.append({
            "update_id": ident("FWU", len(firmware_updates) + 1), "device_id": device["device_id"], "from_version": version,
            "to_version": latest, "severity": "bugfix", "status": status, "released_on": day(-rng.randint(20, 90)),
            "scheduled_for": (CLOCK + timedelta(days=rng.randint(1, 6))).replace(hour=3, minute=0).isoformat(timespec="seconds")
            if status == "scheduled" else None,
            "completed_at": stamp(rng.randint(60 * 24, 60 * 24 * 10)) if status == "failed" else None,
        })
    elif not current and rng.random() < 0.12:
        nxt = NEWER[version]
        firmware_updates.append({
            "update_id": ident("FWU", len(firmware_updates) + 1), "device_id": device["device_id"], "from_version": version,
            "to_version": nxt, "severity": SEVERITY[nxt], "status": "available", "released_on": day(-rng.randint(2, 14)),
            "scheduled_for": None, "completed_at": None,
        })
    if version not in OLDER.values() and rng.random() < 0.08:  # history: the update that brought it current
        firmware_updates.append({
            "update_id": ident("FWU", len(firmware_updates) + 1), "device_id": device["device_id"],
            "from_version": OLDER[version], "to_version": version, "severity": "bugfix", "status": "installed",
            "released_on": day(-rng.randint(60, 120)), "scheduled_for": None,
            "completed_at": stamp(rng.randint(60 * 24 * 20, 60 * 24 * 55)),
        })

# ----------------------------------------------------------------------------- a live deployment's shape
# Added in round 3 (seed shape, issue #20): a household app that has run for months holds mostly resolved
# alarms, installed updates and automations each family named its own way. Every change below is explicit
# (by id) or drawn from its own stream, so the rows above keep their values and their ids.
tune = random.Random(SEED + 2)
by_id = {table: {row[key]: row for row in rows} for table, key, rows in (
    ("devices", "device_id", devices), ("alarm_events", "event_id", alarm_events),
    ("firmware_updates", "update_id", firmware_updates), ("access_codes", "code_id", access_codes),
    ("automations", "automation_id", automations))}


def home_member_ids(home_id: str) -> list[str]:
    return [m["user_id"] for m in memberships if m["home_id"] == home_id and m["role"] != "guest" and m["status"] == "active"]


# automations: a household names its own (the few that the tests name keep theirs)
AUTOMATION_NAMES = {
    "AUT-00005": "Bedtime", "AUT-00006": "Morning lights", "AUT-00007": "Hello home", "AUT-00008": "Away at dusk",
    "AUT-00009": "Porch light on", "AUT-00011": "Night night", "AUT-00012": "Wake up 6:30",
    "AUT-00013": "Vacation lockdown", "AUT-00016": "Farmhouse porch at dusk", "AUT-00017": "Workday morning",
    "AUT-00018": "Rise and shine", "AUT-00019": "Lock up at 10:30", "AUT-00020": "Old goodnight routine",
    "AUT-00021": "Lock up when we're out", "AUT-00022": "Lights when I get in", "AUT-00023": "School mornings",
    "AUT-00024": "Dusk lights", "AUT-00025": "Kids' lights off", "AUT-00026": "Away evenings",
    "AUT-00027": "Early start", "AUT-00028": "Goodnight house", "AUT-00029": "Sundown",
    "AUT-00030": "Lights off 10:30pm", "AUT-00031": "Weekday alarm clock", "AUT-00032": "Good morning weekdays",
    "AUT-00033": "Evening lights", "AUT-00034": "Coffee and lights", "AUT-00035": "Nobody home",
    "AUT-00036": "Morning routine", "AUT-00038": "Outside lights at sunset", "AUT-00039": "Cabin secure at sunset",
    "AUT-00040": "Wake-up lights", "AUT-00041": "End of the day", "AUT-00042": "Up and at 'em",
    "AUT-00043": "Bedtime lockup", "AUT-00044": "Sunset porch",
}
for automation_id, name in AUTOMATION_NAMES.items():
    by_id["automations"][automation_id]["name"] = name

# access codes: a few codes that were revoked had simply run out
for code_id in ("ACC-00033", "ACC-00034", "ACC-00049"):
    code = by_id["access_codes"][code_id]
    code["status"] = "expired"
    code["valid_until"] = day(-tune.randint(6, 45))
    code["valid_from"] = min(code["valid_from"], (date_of(code["valid_until"]) - timedelta(days=30)).isoformat())

# alarm events: most alarms were dealt with; the open ones are recent or on devices still in trouble
RESOLVED_NOW = {  # event -> (resolution note, battery after the fix or None)
    "ALM-00004": ("New CR123A in the leak sensor under the water heater.", 100),
    "ALM-00007": ("Changed the climate sensor's coin cell; it reports every few minutes again.", 100),
    "ALM-00008": ("Put a 9V in the hallway smoke detector and pressed test: loud and clear.", 100),
    "ALM-00013": ("Battery swapped in the upstairs smoke detector while the ladder was out.", 95),
    "ALM-00016": ("Replaced both AAA cells in the bedroom climate sensor.", 100),
    "ALM-00029": ("Bacon on the stove; fan on high and the alarm stopped after a few minutes.", None),
    "ALM-00031": ("Someone vaped near the detector during the party. Asked guests to go outside.", None),
    "ALM-00036": ("Shower steam again; we keep the bathroom door shut now.", None),
    "ALM-00037": ("My daughter came back for her laptop and forgot to disarm first.", None),
    "ALM-00039": ("Popcorn burned in the microwave. No fire, just a smelly kitchen.", None),
}
for event_id, (note, battery) in RESOLVED_NOW.items():
    event = by_id["alarm_events"][event_id]
    occurred = datetime.fromisoformat(event["occurred_at"])
    minutes_ago = int((CLOCK - occurred).total_seconds() // 60)
    if event["status"] == "open":
        event["acknowledged_by_user_id"] = tune.choice(home_member_ids(event["home_id"]))
        event["acknowledged_at"] = stamp(minutes_ago - tune.randint(3, 40))
    event["status"] = "resolved"
    event["resolved_at"] = stamp(minutes_ago - tune.randint(45, min(300, minutes_ago - 5)))
    event["resolution_note"] = note
    if battery is not None:
        by_id["devices"][event["device_id"]]["battery_pct"] = battery

ALARM_HISTORY = [  # (device, event type, days ago, resolution note): months of incidents, all dealt with
    ("DEV-00019", "intrusion", 34, "Our son came in the back door after midnight without disarming. We talked."),
    ("DEV-00018", "low_battery", 71, "Fresh CR2032 in the climate sensor; it reads 100% again."),
    ("DEV-00017", "tamper", 52, "Wind knocked the camera off its magnetic mount. Screwed it to the wall this time."),
    ("DEV-00037", "intrusion", 18, "The plumber let himself in the back to check the water heater; he had a key."),
    ("DEV-00036", "device_offline", 40, "Gardener unplugged the camera to run the hedge trimmer. Plugged back in."),
    ("DEV-00057", "leak", 95, "Ice maker line behind the fridge was dripping; replaced the compression fitting."),
    ("DEV-00059", "low_battery", 120, "Swapped all four AAs in the deadbolt."),
    ("DEV-00068", "tamper", 27, "A raccoon climbed the fence and bumped the camera. Re-aimed it at the yard."),
    ("DEV-00077", "smoke", 63, "Oven self-clean cycle smoked up the kitchen. Nothing burning; aired the house out."),
    ("DEV-00084", "low_battery", 88, "New batteries in the keypad lock after it started chirping."),
    ("DEV-00093", "leak", 45, "Sump pump float got stuck in the storm. Freed it, basement is dry now."),
    ("DEV-00098", "leak", 140, "Snowmelt came in under the patio door; mopped up and fitted a new door sweep."),
    ("DEV-00099", "intrusion", 22, "The cat knocked a plant off the shelf right in front of the sensor. Nobody inside."),
    ("DEV-00111", "intrusion", 58, "Cleaner came in the back door before her code had been set up."),
    ("DEV-00119", "smoke", 101, "Lit the fireplace before opening the flue. Windows open, no damage."),
    ("DEV-00127", "low_battery", 77, "Replaced the batteries; the keypad lights up normally now."),
    ("DEV-00140", "device_offline", 33, "Camera dropped off after the router update; power-cycled it and it rejoined."),
    ("DEV-00147", "tamper", 14, "Kids punched random codes into the keypad until it locked out. Cleared it."),
    ("DEV-00152", "leak", 12, "Washer drain hose popped out of the standpipe. Zip-tied it in place."),
    ("DEV-00153", "smoke", 150, "Smoke from the neighbour's fire pit drifted in through the open window."),
    ("DEV-00166", "intrusion", 9, "A delivery driver tried the back door looking for somewhere to leave a parcel."),
    ("DEV-00170", "smoke", 39, "Small toaster oven fire, smothered it. The toaster oven went in the bin."),
    ("DEV-00174", "device_offline", 66, "We changed the Wi-Fi password; re-joined the sensor to the new network."),
    ("DEV-00162", "device_offline", 110, "The hub lost power in the ice storm outage and came back with the power."),
]
CRITICAL = {"intrusion", "smoke", "leak"}
for device_id, etype, days_ago, note in ALARM_HISTORY:
    device = by_id["devices"][device_id]
    minutes_ago = days_ago * 24 * 60 + tune.randint(0, 23 * 60)
    alarm_events.append({
        "event_id": ident("ALM", len(alarm_events) + 1), "home_id": device["home_id"], "device_id": device_id,
        "event_type": etype, "severity": "critical" if etype in CRITICAL else "warning", "status": "resolved",
        "occurred_at": stamp(minutes_ago), "acknowledged_by_user_id": tune.choice(home_member_ids(device["home_id"])),
        "acknowledged_at": stamp(minutes_ago - tune.randint(2, 30)),
        "resolved_at": stamp(minutes_ago - tune.randint(40, 600)), "resolution_note": note,
    })

# firmware: most updates were installed when they came out; a few wait in a night-time window


def installed_at(released_on: str) -> str:
    since = (TODAY - date_of(released_on)).days
    done = CLOCK - timedelta(days=tune.randint(1, max(1, since - 1)))
    return done.replace(hour=tune.choice([2, 3, 3, 4]), minute=tune.randint(0, 59), second=0).isoformat(timespec="seconds")


INSTALLED_NOW = ["FWU-00004", "FWU-00008", "FWU-00009", "FWU-00013", "FWU-00021", "FWU-00022", "FWU-00024",
                 "FWU-00025", "FWU-00028", "FWU-00031", "FWU-00033", "FWU-00034", "FWU-00037",
                 "FWU-00039", "FWU-00041", "FWU-00045", "FWU-00048", "FWU-00049", "FWU-00050", "FWU-00051",
                 "FWU-00054", "FWU-00055", "FWU-00057", "FWU-00061", "FWU-00062", "FWU-00063"]
for update_id in INSTALLED_NOW:
    update = by_id["firmware_updates"][update_id]
    update.update(status="installed", scheduled_for=None, completed_at=installed_at(update["released_on"]))
    by_id["devices"][update["device_id"]]["firmware_version"] = update["to_version"]
for update_id in ("FWU-00036", "FWU-00046", "FWU-00060"):
    by_id["firmware_updates"][update_id].update(
        status="scheduled",
        scheduled_for=(CLOCK + timedelta(days=tune.randint(1, 5))).replace(hour=3, minute=0).isoformat(timespec="seconds"))

FIRMWARE_HISTORY = ["DEV-00019", "DEV-00037", "DEV-00063", "DEV-00077", "DEV-00089", "DEV-00100", "DEV-00112",
                    "DEV-00119", "DEV-00141", "DEV-00146", "DEV-00153", "DEV-00170"]
for device_id in FIRMWARE_HISTORY:
    device = by_id["devices"][device_id]
    version = device["firmware_version"]
    released = day(-tune.randint(60, 200))
    firmware_updates.append({
        "update_id": ident("FWU", len(firmware_updates) + 1), "device_id": device_id, "from_version": OLDER[version],
        "to_version": version, "severity": tune.choice(["bugfix", "bugfix", "security", "feature"]),
        "status": "installed", "released_on": released, "scheduled_for": None, "completed_at": installed_at(released),
    })

# ----------------------------------------------------------------------------- write
for home in homes:
    del home["_kind"]
seed = {
    "users": users, "homes": homes, "memberships": memberships, "rooms": rooms, "devices": devices,
    "scenes": scenes, "scene_actions": scene_actions, "automations": automations,
    "energy_readings": energy_readings, "access_codes": access_codes, "alarm_events": alarm_events,
    "firmware_updates": firmware_updates,
}
out = Path(__file__).with_name("seed.json")
out.write_text(json.dumps(seed, indent=1, ensure_ascii=False) + "\n")
if __name__ == "__main__":
    for table, rows in seed.items():
        print(f"{table:18s} {len(rows)}")
    print(f"{'total':18s} {sum(len(r) for r in seed.values())}")
