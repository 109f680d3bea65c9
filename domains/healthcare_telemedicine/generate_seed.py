"""Deterministic seed data for the healthcare_telemedicine domain.

Run `python generate_seed.py` in this folder: it rewrites seed.json next to it. Everything
comes from random.Random(SEED) and the fixed domain clock below, never the wall clock, so
the output is byte-identical on every run.

The world: a multi-state virtual clinic around the clock 2026-05-12T10:30:00 (a Tuesday).
Visits run from December 2025 to early June 2026. Distractors are made on purpose: patients
and clinicians sharing names, medications in two strengths with different interaction
profiles, patients with a terminated and an active coverage, claims of one patient in every
status, several prescriptions of one patient in different states.
"""

from __future__ import annotations

import json
import random
from datetime import date, datetime, time, timedelta
from pathlib import Path

SEED = 20260512
NOW = datetime(2026, 5, 12, 10, 30, 0)
TODAY = NOW.date()
HISTORY_START = date(2025, 12, 1)
FUTURE_END = date(2026, 6, 5)
OUT = Path(__file__).with_name("seed.json")

rng = random.Random(SEED)
# Wording and licence numbers come from their own stream, so the world drawn by `rng` stays as it was.
text_rng = random.Random(SEED + 1)


def npi_for(index: int) -> str:
    """A 10-digit National Provider Identifier with its Luhn check digit (prefix 80840, as CMS computes it)."""
    base = f"1{random.Random(f'npi-{SEED}-{index}').randrange(10 ** 8):08d}"
    digits = [int(d) for d in "80840" + base]
    total = 0
    for position, digit in enumerate(reversed(digits)):
        if position % 2 == 0:
            digit *= 2
            digit = digit - 9 if digit > 9 else digit
        total += digit
    return base + str((10 - total % 10) % 10)


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def pid(prefix: str, number: int) -> str:
    return f"{prefix}-{number:05d}"


# --------------------------------------------------------------------------- places
CITIES = {
    "CA": [("Sacramento", "958"), ("Oakland", "946"), ("San Diego", "921"), ("Fresno", "937")],
    "NY": [("Albany", "122"), ("Rochester", "146"), ("Brooklyn", "112"), ("Buffalo", "142")],
    "TX": [("Austin", "787"), ("Houston", "770"), ("El Paso", "799")],
    "FL": [("Tampa", "336"), ("Orlando", "328"), ("Gainesville", "326")],
    "WA": [("Spokane", "992"), ("Tacoma", "984"), ("Seattle", "981")],
    "OR": [("Portland", "972"), ("Eugene", "974")],
    "MA": [("Worcester", "016"), ("Cambridge", "021")],
    "IL": [("Evanston", "602"), ("Peoria", "616")],
    "CO": [("Denver", "802"), ("Boulder", "803")],
    "AZ": [("Tucson", "857"), ("Phoenix", "850")],
    "PA": [("Pittsburgh", "152"), ("Allentown", "181")],
}
AREA_CODES = {"CA": "916", "NY": "518", "TX": "512", "FL": "813", "WA": "509", "OR": "503", "MA": "508",
              "IL": "847", "CO": "303", "AZ": "520", "PA": "412"}
STREETS = ["Maple Ave", "Oak St", "Cedar Ln", "Willow Dr", "Juniper Ct", "Harbor Blvd", "Sunset Rd", "Lincoln Ave",
           "Park Pl", "Riverside Dr", "Hillcrest Way", "Magnolia St", "Birch Rd", "Elm St", "Aspen Trl",
           "Chestnut St", "Lakeview Ter", "Mill Rd", "Orchard Way", "Granite St", "Prospect Ave", "Laurel Ct"]
MAIL = ["gmail.com", "outlook.com", "yahoo.com", "icloud.com", "proton.me", "fastmail.com"]

FEMALE = ["Maria", "Emily", "Aisha", "Sofia", "Grace", "Hannah", "Priya", "Olivia", "Naomi", "Rosa", "Leah", "Mei",
          "Fatima", "Chloe", "Isabel", "Tamara", "Yuki", "Beatriz", "Nora", "Camila", "Joanna", "Ruth", "Ingrid"]
MALE = ["James", "Daniel", "Omar", "Lucas", "Ethan", "Marcus", "Raj", "Samuel", "Diego", "Kenji", "Andre", "Victor",
        "Noah", "Elijah", "Tomas", "Hamid", "Peter", "Luis", "Caleb", "Felix", "Malik", "Arjun", "Owen"]
LAST = ["Garcia", "Okafor", "Chen", "Nguyen", "Patel", "Johnson", "Rivera", "Kowalski", "Haddad", "Sato", "Murphy",
        "Thompson", "Alvarez", "Schmidt", "Mensah", "Rossi", "Kim", "Hernandez", "Brooks", "Lindqvist", "Novak",
        "Delgado", "Fitzgerald", "Abara", "Castillo", "Whitaker", "Morales", "Yilmaz", "Osei", "Bennett"]

# --------------------------------------------------------------------------- patients
ALLERGY_CLASSES = ["penicillin", "sulfonamide", "macrolide", "nsaid", "fluoroquinolone", "cephalosporin",
                   "tetracycline"]


def make_patients() -> list[dict]:
    # (first, last, sex, state, age) pinned near neighbours first, then random ones.
    pinned = [
        ("Maria", "Garcia", "female", "CA", 42), ("Maria", "Garcia", "female", "TX", 67),
        ("James", "Okafor", "male", "NY", 35), ("James", "Okafor", "male", "NY", 9),
        ("Emily", "Chen", "female", "WA", 29), ("Emily", "Chen", "female", "OR", 51),
        ("Daniel", "Nguyen", "male", "CA", 58), ("Priya", "Patel", "female", "IL", 33),
        ("Omar", "Haddad", "male", "MA", 46), ("Sofia", "Rivera", "female", "FL", 12),
        ("Sofia", "Rivera", "female", "FL", 39), ("Lucas", "Kowalski", "male", "PA", 71),
    ]
    rows = []
    used = {(f, l) for f, l, *_ in pinned}
    specs = list(pinned)
    states = list(CITIES)
    while len(specs) < 64:
        sex = rng.choice(["female", "male"])
        first = rng.choice(FEMALE if sex == "female" else MALE)
        last = rng.choice(LAST)
        if (first, last) in used:
            continue
        used.add((first, last))
        age = rng.choice([rng.randint(2, 17)] + [rng.randint(19, 84) for _ in range(5)])
        if rng.random() < 0.04:
            sex = "other"
        specs.append((first, last, sex, rng.choice(states), age))
    for index, (first, last, sex, state, age) in enumerate(specs, start=1):
        city, zip3 = rng.choice(CITIES[state])
        born = TODAY - timedelta(days=age * 365 + rng.randint(10, 350))
        allergies = []
        if rng.random() < 0.28:
            allergies = sorted(rng.sample(ALLERGY_CLASSES, rng.choice([1, 1, 2])))
        status = "inactive" if index in (14, 27, 41, 55) else "active"
        domain = rng.choice(MAIL)
        email = f"{first.lower()}.{last.lower()}{born.year % 100:02d}@{domain}"
        rows.append({
            "patient_id": pid("PAT", index),
            "first_name": first,
            "last_name": last,
            "date_of_birth": born.isoformat(),
            "sex": sex,
            "email": email,
            "phone": f"+1-{AREA_CODES[state]}-555-{rng.randint(100, 199):04d}",
            "address_line": f"{rng.randint(12, 9850)} {rng.choice(STREETS)}",
            "city": city,
            "state": state,
            "postal_code": f"{zip3}{rng.randint(1, 99):02d}",
            "allergies": ",".join(allergies),
            "status": status,
            "registered_on": (date(2023, 1, 15) + timedelta(days=rng.randint(0, 1150))).isoformat(),
        })
    # the two Sofia Riveras are mother and daughter at one address; the Okafors father and son
    rows[10]["address_line"], rows[10]["city"], rows[10]["postal_code"] = (
        rows[9]["address_line"], rows[9]["city"], rows[9]["postal_code"])
    rows[3]["address_line"], rows[3]["city"], rows[3]["postal_code"] = (
        rows[2]["address_line"], rows[2]["city"], rows[2]["postal_code"])
    rows[3]["phone"] = rows[2]["phone"]
    return rows


def age_of(patient: dict, on: date) -> int:
    born = date.fromisoformat(patient["date_of_birth"])
    return on.year - born.year - ((on.month, on.day) < (born.month, born.day))


# --------------------------------------------------------------------------- clinicians
SPECIALTY_FEES = {"family_medicine": (95, 125), "internal_medicine": (110, 140), "pediatrics": (90, 115),
                  "dermatology": (130, 160), "psychiatry": (160, 220), "cardiology": (180, 230),
                  "endocrinology": (150, 190)}
CLINICIAN_SPECS = [
    # first, last, credential, specialty, status
    ("David", "Kim", "MD", "family_medicine", "active"), ("David", "Kim", "MD", "dermatology", "active"),
    ("Sarah", "Patel", "DO", "internal_medicine", "active"), ("Sarah", "Patel", "NP", "psychiatry", "active"),
    ("Helen", "Osei", "MD", "cardiology", "active"), ("Michael", "Brennan", "MD", "cardiology", "active"),
    ("Laura", "Jimenez", "MD", "pediatrics", "active"), ("Thomas", "Reyes", "MD", "pediatrics", "active"),
    ("Anita", "Sharma", "MD", "endocrinology", "active"), ("Robert", "Lindgren", "DO", "endocrinology", "active"),
    ("Julia", "Moreau", "MD", "dermatology", "active"), ("Kwame", "Asante", "MD", "psychiatry", "active"),
    ("Rachel", "Goldberg", "PA", "family_medicine", "active"), ("Carlos", "Mendoza", "NP", "family_medicine", "active"),
    ("Wen", "Zhao", "MD", "internal_medicine", "active"), ("Patrick", "O'Neill", "MD", "internal_medicine", "active"),
    ("Amara", "Nwosu", "NP", "pediatrics", "active"), ("Jonas", "Berg", "MD", "psychiatry", "active"),
    ("Elena", "Popescu", "MD", "endocrinology", "active"), ("Hiroshi", "Tanaka", "MD", "cardiology", "active"),
    ("Grace", "Holloway", "NP", "family_medicine", "active"), ("Samir", "Aziz", "DO", "family_medicine", "active"),
    ("Lena", "Fischer", "PA", "dermatology", "active"), ("Marcus", "Webb", "MD", "internal_medicine", "active"),
    ("Nadia", "Rahman", "NP", "psychiatry", "active"), ("Oliver", "Grant", "MD", "family_medicine", "active"),
    ("Isabel", "Cruz", "MD", "pediatrics", "active"), ("Victor", "Almeida", "MD", "endocrinology", "active"),
    ("Denise", "Carter", "MD", "dermatology", "on_leave"), ("Paul", "Ivanov", "MD", "family_medicine", "on_leave"),
    ("Teresa", "Lund", "NP", "psychiatry", "inactive"), ("Harold", "Finch", "MD", "internal_medicine", "inactive"),
]


def make_clinicians(patients: list[dict]) -> list[dict]:
    rows = []
    patient_states = sorted({p["state"] for p in patients})
    for index, (first, last, cred, specialty, status) in enumerate(CLINICIAN_SPECS, start=1):
        states = sorted(rng.sample(patient_states, rng.randint(2, 5)))
        controlled = 1 if (specialty == "psychiatry" and cred != "NP") or (
            specialty in ("family_medicine", "internal_medicine") and rng.random() < 0.4 and cred in ("MD", "DO")) else 0
        low, high = SPECIALTY_FEES[specialty]
        fee = float(rng.randrange(low, high + 1, 5))
        if cred in ("NP", "PA"):
            fee = float(round(fee * 0.85 / 5) * 5)
        handle = f"{first[0].lower()}{last.lower().replace(chr(39), '')}"
        rows.append({
            "clinician_id": pid("CLN", index),
            "first_name": first,
            "last_name": last,
            "npi": npi_for(index),
            "credential": cred,
            "specialty": specialty,
            "licensed_states": ",".join(states),
            "can_prescribe_controlled": controlled,
            "visit_fee": fee,
            "email": f"{handle}{index:02d}@careline-virtual.health",
            "status": status,
        })
    # make sure every patient state is served by some active clinician of a broad specialty
    broad = [c for c in rows if c["specialty"] in ("family_medicine", "internal_medicine") and c["status"] == "active"]
    for state in patient_states:
        if not any(state in c["licensed_states"].split(",") for c in broad):
            target = broad[patient_states.index(state) % len(broad)]
            target["licensed_states"] = ",".join(sorted(target["licensed_states"].split(",") + [state]))
    return rows


# --------------------------------------------------------------------------- medications
MEDICATIONS = [
    # name, generic, class, strength, form, schedule, max_refills, required lab
    ("Lisinopril 10 mg tablet", "lisinopril", "ace_inhibitor", "10 mg", "tablet", 0, 11, "BMP"),
    ("Lisinopril 20 mg tablet", "lisinopril", "ace_inhibitor", "20 mg", "tablet", 0, 11, "BMP"),
    ("Losartan 50 mg tablet", "losartan", "arb", "50 mg", "tablet", 0, 11, "BMP"),
    ("Amlodipine 5 mg tablet", "amlodipine", "calcium_channel_blocker", "5 mg", "tablet", 0, 11, None),
    ("Metoprolol succinate ER 50 mg tablet", "metoprolol succinate", "beta_blocker", "50 mg", "tablet", 0, 11, None),
    ("Hydrochlorothiazide 25 mg tablet", "hydrochlorothiazide", "thiazide_diuretic", "25 mg", "tablet", 0, 11, "BMP"),
    ("Spironolactone 25 mg tablet", "spironolactone", "potassium_sparing_diuretic", "25 mg", "tablet", 0, 5, "BMP"),
    ("Atorvastatin 20 mg tablet", "atorvastatin", "statin", "20 mg", "tablet", 0, 11, "LIPID"),
    ("Atorvastatin 40 mg tablet", "atorvastatin", "statin", "40 mg", "tablet", 0, 11, "LIPID"),
    ("Simvastatin 20 mg tablet", "simvastatin", "statin", "20 mg", "tablet", 0, 11, "LIPID"),
    ("Metformin 500 mg tablet", "metformin", "biguanide", "500 mg", "tablet", 0, 11, "CMP"),
    ("Metformin ER 750 mg tablet", "metformin", "biguanide", "750 mg", "tablet", 0, 11, "CMP"),
    ("Semaglutide 0.5 mg pen", "semaglutide", "glp1_agonist", "0.5 mg/dose", "injection_pen", 0, 5, "A1C"),
    ("Levothyroxine 50 mcg tablet", "levothyroxine", "thyroid_hormone", "50 mcg", "tablet", 0, 11, "TSH"),
    ("Levothyroxine 75 mcg tablet", "levothyroxine", "thyroid_hormone", "75 mcg", "tablet", 0, 11, "TSH"),
    ("Sertraline 50 mg tablet", "sertraline", "ssri", "50 mg", "tablet", 0, 5, None),
    ("Escitalopram 10 mg tablet", "escitalopram", "ssri", "10 mg", "tablet", 0, 5, None),
    ("Fluoxetine 20 mg capsule", "fluoxetine", "ssri", "20 mg", "capsule", 0, 5, None),
    ("Bupropion XL 150 mg tablet", "bupropion", "aminoketone", "150 mg", "tablet", 0, 5, None),
    ("Venlafaxine ER 75 mg capsule", "venlafaxine", "snri", "75 mg", "capsule", 0, 5, None),
    ("Trazodone 50 mg tablet", "trazodone", "serotonin_modulator", "50 mg", "tablet", 0, 5, None),
    ("Sumatriptan 50 mg tablet", "sumatriptan", "triptan", "50 mg", "tablet", 0, 5, None),
    ("Tramadol 50 mg tablet", "tramadol", "opioid", "50 mg", "tablet", 4, 1, None),
    ("Oxycodone 5 mg tablet", "oxycodone", "opioid", "5 mg", "tablet", 2, 0, None),
    ("Alprazolam 0.5 mg tablet", "alprazolam", "benzodiazepine", "0.5 mg", "tablet", 4, 2, None),
    ("Lorazepam 1 mg tablet", "lorazepam", "benzodiazepine", "1 mg", "tablet", 4, 2, None),
    ("Zolpidem 5 mg tablet", "zolpidem", "sedative_hypnotic", "5 mg", "tablet", 4, 2, None),
    ("Methylphenidate ER 18 mg tablet", "methylphenidate", "stimulant", "18 mg", "tablet", 2, 0, None),
    ("Amphetamine salts 10 mg tablet", "amphetamine/dextroamphetamine", "stimulant", "10 mg", "tablet", 2, 0, None),
    ("Amoxicillin 500 mg capsule", "amoxicillin", "penicillin", "500 mg", "capsule", 0, 0, None),
    ("Amoxicillin-clavulanate 875 mg tablet", "amoxicillin/clavulanate", "penicillin", "875/125 mg", "tablet", 0, 0, None),
    ("Azithromycin 250 mg tablet", "azithromycin", "macrolide", "250 mg", "tablet", 0, 0, None),
    ("Clarithromycin 500 mg tablet", "clarithromycin", "macrolide", "500 mg", "tablet", 0, 0, None),
    ("Ciprofloxacin 500 mg tablet", "ciprofloxacin", "fluoroquinolone", "500 mg", "tablet", 0, 0, None),
    ("Cephalexin 500 mg capsule", "cephalexin", "cephalosporin", "500 mg", "capsule", 0, 0, None),
    ("Sulfamethoxazole-trimethoprim DS tablet", "sulfamethoxazole/trimethoprim", "sulfonamide", "800/160 mg", "tablet", 0, 0, None),
    ("Doxycycline 100 mg capsule", "doxycycline", "tetracycline", "100 mg", "capsule", 0, 2, None),
    ("Warfarin 5 mg tablet", "warfarin", "anticoagulant", "5 mg", "tablet", 0, 5, None),
    ("Apixaban 5 mg tablet", "apixaban", "anticoagulant", "5 mg", "tablet", 0, 11, None),
    ("Ibuprofen 800 mg tablet", "ibuprofen", "nsaid", "800 mg", "tablet", 0, 2, None),
    ("Naproxen 500 mg tablet", "naproxen", "nsaid", "500 mg", "tablet", 0, 2, None),
    ("Omeprazole 20 mg capsule", "omeprazole", "proton_pump_inhibitor", "20 mg", "capsule", 0, 11, None),
    ("Fluconazole 150 mg tablet", "fluconazole", "azole_antifungal", "150 mg", "tablet", 0, 1, None),
    ("Prednisone 10 mg tablet", "prednisone", "corticosteroid", "10 mg", "tablet", 0, 0, None),
    ("Albuterol HFA 90 mcg inhaler", "albuterol", "beta_agonist", "90 mcg/puff", "inhaler", 0, 5, None),
    ("Fluticasone 50 mcg nasal spray", "fluticasone", "corticosteroid", "50 mcg/spray", "nasal_spray", 0, 5, None),
    ("Hydrocortisone 2.5% cream", "hydrocortisone", "corticosteroid", "2.5%", "cream", 0, 2, None),
    ("Tretinoin 0.05% cream", "tretinoin", "retinoid", "0.05%", "cream", 0, 5, None),
    ("Isotretinoin 20 mg capsule", "isotretinoin", "retinoid", "20 mg", "capsule", 0, 0, "CMP"),
    ("Cetirizine 10 mg tablet", "cetirizine", "antihistamine", "10 mg", "tablet", 0, 11, None),
]

INTERACTIONS = [
    ("Tramadol 50 mg tablet", "Sertraline 50 mg tablet", "major", "Serotonin syndrome and lowered seizure threshold."),
    ("Tramadol 50 mg tablet", "Escitalopram 10 mg tablet", "major", "Serotonin syndrome and lowered seizure threshold."),
    ("Tramadol 50 mg tablet", "Fluoxetine 20 mg capsule", "major", "Serotonin syndrome; fluoxetine also blocks tramadol activation."),
    ("Tramadol 50 mg tablet", "Venlafaxine ER 75 mg capsule", "major", "Serotonin syndrome risk."),
    ("Tramadol 50 mg tablet", "Bupropion XL 150 mg tablet", "major", "Additive seizure risk."),
    ("Tramadol 50 mg tablet", "Alprazolam 0.5 mg tablet", "major", "Opioid plus benzodiazepine: respiratory depression."),
    ("Oxycodone 5 mg tablet", "Alprazolam 0.5 mg tablet", "major", "Opioid plus benzodiazepine: respiratory depression."),
    ("Oxycodone 5 mg tablet", "Lorazepam 1 mg tablet", "major", "Opioid plus benzodiazepine: respiratory depression."),
    ("Oxycodone 5 mg tablet", "Zolpidem 5 mg tablet", "major", "Additive CNS and respiratory depression."),
    ("Zolpidem 5 mg tablet", "Lorazepam 1 mg tablet", "moderate", "Additive sedation and fall risk."),
    ("Sumatriptan 50 mg tablet", "Sertraline 50 mg tablet", "moderate", "Rare serotonin syndrome; counsel the patient."),
    ("Sumatriptan 50 mg tablet", "Escitalopram 10 mg tablet", "moderate", "Rare serotonin syndrome; counsel the patient."),
    ("Sumatriptan 50 mg tablet", "Venlafaxine ER 75 mg capsule", "moderate", "Rare serotonin syndrome; counsel the patient."),
    ("Trazodone 50 mg tablet", "Sertraline 50 mg tablet", "minor", "Small additive serotonergic effect."),
    ("Simvastatin 20 mg tablet", "Clarithromycin 500 mg tablet", "major", "CYP3A4 inhibition: myopathy and rhabdomyolysis."),
    ("Atorvastatin 20 mg tablet", "Clarithromycin 500 mg tablet", "moderate", "Raised statin levels; limit the dose."),
    ("Atorvastatin 40 mg tablet", "Clarithromycin 500 mg tablet", "major", "Raised statin levels above 20 mg: myopathy risk."),
    ("Warfarin 5 mg tablet", "Fluconazole 150 mg tablet", "major", "Fluconazole raises INR; bleeding risk."),
    ("Warfarin 5 mg tablet", "Sulfamethoxazole-trimethoprim DS tablet", "major", "Markedly raised INR; bleeding risk."),
    ("Warfarin 5 mg tablet", "Ibuprofen 800 mg tablet", "major", "Additive bleeding risk and GI bleeding."),
    ("Warfarin 5 mg tablet", "Naproxen 500 mg tablet", "major", "Additive bleeding risk and GI bleeding."),
    ("Apixaban 5 mg tablet", "Ibuprofen 800 mg tablet", "moderate", "Increased bleeding risk."),
    ("Apixaban 5 mg tablet", "Naproxen 500 mg tablet", "moderate", "Increased bleeding risk."),
    ("Lisinopril 10 mg tablet", "Spironolactone 25 mg tablet", "moderate", "Hyperkalemia; check potassium."),
    ("Lisinopril 20 mg tablet", "Spironolactone 25 mg tablet", "moderate", "Hyperkalemia; check potassium."),
    ("Losartan 50 mg tablet", "Spironolactone 25 mg tablet", "moderate", "Hyperkalemia; check potassium."),
    ("Spironolactone 25 mg tablet", "Sulfamethoxazole-trimethoprim DS tablet", "major", "Severe hyperkalemia."),
    ("Lisinopril 10 mg tablet", "Ibuprofen 800 mg tablet", "moderate", "Reduced antihypertensive effect; kidney injury risk."),
    ("Lisinopril 20 mg tablet", "Naproxen 500 mg tablet", "moderate", "Reduced antihypertensive effect; kidney injury risk."),
    ("Ciprofloxacin 500 mg tablet", "Prednisone 10 mg tablet", "moderate", "Tendinitis and tendon rupture risk."),
    ("Isotretinoin 20 mg capsule", "Doxycycline 100 mg capsule", "major", "Intracranial hypertension (pseudotumor cerebri)."),
    ("Fluconazole 150 mg tablet", "Escitalopram 10 mg tablet", "moderate", "QT prolongation."),
    ("Azithromycin 250 mg tablet", "Escitalopram 10 mg tablet", "moderate", "QT prolongation."),
    ("Ciprofloxacin 500 mg tablet", "Escitalopram 10 mg tablet", "moderate", "QT prolongation."),
    ("Metformin 500 mg tablet", "Prednisone 10 mg tablet", "minor", "Steroids raise blood glucose."),
    ("Levothyroxine 50 mcg tablet", "Omeprazole 20 mg capsule", "minor", "Reduced levothyroxine absorption."),
    ("Levothyroxine 75 mcg tablet", "Omeprazole 20 mg capsule", "minor", "Reduced levothyroxine absorption."),
    ("Fluoxetine 20 mg capsule", "Naproxen 500 mg tablet", "minor", "Small added bleeding risk."),
    ("Amphetamine salts 10 mg tablet", "Bupropion XL 150 mg tablet", "minor", "Slightly lowered seizure threshold."),
]


def make_medications() -> list[dict]:
    rows = []
    for index, (name, generic, cls, strength, form, schedule, refills, lab) in enumerate(MEDICATIONS, start=1):
        rows.append({"medication_id": pid("MED", index), "name": name, "generic_name": generic, "drug_class": cls,
                     "strength": strength, "form": form, "controlled_schedule": schedule, "max_refills": refills,
                     "required_lab_test": lab})
    return rows


def make_interactions(meds: list[dict]) -> list[dict]:
    by_name = {m["name"]: m["medication_id"] for m in meds}
    rows = []
    for index, (a, b, severity, text) in enumerate(INTERACTIONS, start=1):
        first, second = sorted([by_name[a], by_name[b]])
        rows.append({"interaction_id": pid("DIX", index), "medication_id": first, "interacting_medication_id": second,
                     "severity": severity, "description": text})
    return rows


# --------------------------------------------------------------------------- clinical content
REASONS = {
    "family_medicine": ["Sore throat and low fever for three days", "Blood pressure follow-up", "Seasonal allergies flaring",
                        "Lower back pain after lifting", "Persistent cough for two weeks", "Annual medication review",
                        "Painful urination since yesterday", "Tension headaches most afternoons"],
    "internal_medicine": ["Hypertension management", "Cholesterol results review", "Heartburn after meals",
                          "Fatigue and low energy", "Diabetes medication check", "Urinary tract infection symptoms"],
    "pediatrics": ["Ear pain and fever", "Rash on arms and legs", "Asthma inhaler refill visit", "Sore throat, school note needed",
                   "Well-child follow-up by video", "Cough that worsens at night"],
    "dermatology": ["Acne not improving with over-the-counter care", "Itchy eczema patches", "New mole that changed color",
                    "Psoriasis flare on elbows", "Rosacea redness", "Hair thinning at the crown"],
    "psychiatry": ["Anxiety and trouble sleeping", "Depression medication follow-up", "ADHD medication review",
                   "Panic attacks at work", "Insomnia for several months", "Mood check after dose change"],
    "cardiology": ["Palpitations during exercise", "Atrial fibrillation follow-up", "High blood pressure despite medication",
                   "Cholesterol and statin review", "Shortness of breath on stairs, stable"],
    "endocrinology": ["Type 2 diabetes follow-up", "Thyroid dose adjustment", "A1C results review", "Weight management consult",
                      "Low vitamin D follow-up"],
}
DIAGNOSES = {
    "family_medicine": ["J06.9", "I10", "J30.1", "M54.50", "R05.2", "N39.0", "G44.209"],
    "internal_medicine": ["I10", "E78.5", "K21.9", "R53.83", "E11.9", "N39.0"],
    "pediatrics": ["H66.90", "L20.9", "J45.909", "J02.9", "Z00.129", "R05.9"],
    "dermatology": ["L70.0", "L20.9", "D22.5", "L40.0", "L71.9", "L65.9"],
    "psychiatry": ["F41.1", "F33.1", "F90.0", "F41.0", "G47.00", "F32.A"],
    "cardiology": ["R00.2", "I48.91", "I10", "E78.5", "R06.02"],
    "endocrinology": ["E11.9", "E03.9", "E11.65", "E66.9", "E55.9"],
}
NOTE_TEMPLATES = [
    "Video visit. {reason}. Discussed plan, patient agreed. Return if symptoms worsen.",
    "Patient seen by video for {reason_l}. Vitals reported from home cuff. Plan reviewed and questions answered.",
    "Telehealth encounter: {reason_l}. Exam limited to visual inspection. Follow up in 4-6 weeks.",
]
SPECIALTY_MEDS = {
    "family_medicine": ["Amoxicillin 500 mg capsule", "Lisinopril 10 mg tablet", "Cetirizine 10 mg tablet",
                        "Naproxen 500 mg tablet", "Fluticasone 50 mcg nasal spray", "Cephalexin 500 mg capsule",
                        "Omeprazole 20 mg capsule", "Sumatriptan 50 mg tablet", "Azithromycin 250 mg tablet"],
    "internal_medicine": ["Lisinopril 20 mg tablet", "Atorvastatin 20 mg tablet", "Omeprazole 20 mg capsule",
                          "Metformin 500 mg tablet", "Ciprofloxacin 500 mg tablet", "Amlodipine 5 mg tablet",
                          "Hydrochlorothiazide 25 mg tablet"],
    "pediatrics": ["Amoxicillin 500 mg capsule", "Albuterol HFA 90 mcg inhaler", "Hydrocortisone 2.5% cream",
                   "Cetirizine 10 mg tablet", "Azithromycin 250 mg tablet"],
    "dermatology": ["Tretinoin 0.05% cream", "Doxycycline 100 mg capsule", "Hydrocortisone 2.5% cream",
                    "Isotretinoin 20 mg capsule", "Fluconazole 150 mg tablet"],
    "psychiatry": ["Sertraline 50 mg tablet", "Escitalopram 10 mg tablet", "Bupropion XL 150 mg tablet",
                   "Trazodone 50 mg tablet", "Methylphenidate ER 18 mg tablet", "Amphetamine salts 10 mg tablet",
                   "Alprazolam 0.5 mg tablet", "Venlafaxine ER 75 mg capsule", "Fluoxetine 20 mg capsule"],
    "cardiology": ["Metoprolol succinate ER 50 mg tablet", "Apixaban 5 mg tablet", "Atorvastatin 40 mg tablet",
                   "Amlodipine 5 mg tablet", "Spironolactone 25 mg tablet", "Losartan 50 mg tablet", "Warfarin 5 mg tablet"],
    "endocrinology": ["Metformin ER 750 mg tablet", "Levothyroxine 50 mcg tablet", "Levothyroxine 75 mcg tablet",
                      "Semaglutide 0.5 mg pen", "Metformin 500 mg tablet"],
}
DOSAGE = {
    "tablet": ["Take 1 tablet by mouth once daily.", "Take 1 tablet by mouth twice daily with food.",
               "Take 1 tablet by mouth at bedtime."],
    "capsule": ["Take 1 capsule by mouth twice daily.", "Take 1 capsule by mouth three times daily until finished.",
                "Take 1 capsule by mouth once daily."],
    "inhaler": ["Inhale 2 puffs every 4-6 hours as needed for wheezing."],
    "cream": ["Apply a thin layer to affected skin twice daily."],
    "nasal_spray": ["Use 2 sprays in each nostril once daily."],
    "injection_pen": ["Inject 0.5 mg under the skin once weekly."],
}
SPECIALTY_LABS = {
    "family_medicine": ["CBC", "BMP", "LIPID"], "internal_medicine": ["CMP", "LIPID", "A1C", "BMP", "CBC"],
    "pediatrics": ["CBC"], "dermatology": ["CMP", "CBC"], "psychiatry": ["TSH", "CMP"],
    "cardiology": ["LIPID", "BMP", "CBC"], "endocrinology": ["A1C", "TSH", "VITD", "CMP"],
}
LAB_PRICES = {"CBC": 28.0, "BMP": 32.0, "CMP": 45.0, "LIPID": 38.0, "A1C": 40.0, "TSH": 42.0, "VITD": 55.0, "PSA": 48.0}
STAT_SURCHARGE = 35.0
LAB_PANELS = {
    "CBC": [("WBC", "10^3/uL", 4.0, 11.0), ("HGB", "g/dL", 12.0, 17.5), ("PLT", "10^3/uL", 150.0, 400.0)],
    "BMP": [("GLU", "mg/dL", 70.0, 99.0), ("NA", "mmol/L", 135.0, 145.0), ("K", "mmol/L", 3.5, 5.1),
            ("CREAT", "mg/dL", 0.6, 1.3)],
    "CMP": [("GLU", "mg/dL", 70.0, 99.0), ("NA", "mmol/L", 135.0, 145.0), ("K", "mmol/L", 3.5, 5.1),
            ("CREAT", "mg/dL", 0.6, 1.3), ("ALT", "U/L", 7.0, 56.0), ("AST", "U/L", 10.0, 40.0)],
    "LIPID": [("CHOL", "mg/dL", 0.0, 200.0), ("LDL", "mg/dL", 0.0, 100.0), ("HDL", "mg/dL", 40.0, 90.0),
              ("TRIG", "mg/dL", 0.0, 150.0)],
    "A1C": [("HBA1C", "%", 4.0, 5.6)],
    "TSH": [("TSH", "mIU/L", 0.4, 4.0)],
    "VITD": [("VITD25", "ng/mL", 30.0, 100.0)],
    "PSA": [("PSA", "ng/mL", 0.0, 4.0)],
}
TRIAGE_SYMPTOMS = {
    "family_medicine": ["Sore throat, fever 38.4 C, swollen glands", "Burning on urination and frequency since yesterday",
                        "Sinus pressure and green nasal discharge for ten days"],
    "internal_medicine": ["Home blood pressure readings around 160/100 for a week", "Heartburn every night, worse lying down"],
    "pediatrics": ["Child pulling at left ear, fever 39.0 C overnight", "Itchy rash after new detergent",
                   "Wheezing with colds, inhaler running low"],
    "dermatology": ["Mole on back grew and darkened over two months", "Painful cystic acne on jawline"],
    "psychiatry": ["Panic attacks three times this week", "Low mood and poor sleep for a month"],
    "cardiology": ["Fluttering heartbeat when climbing stairs, no chest pain", "Ankle swelling in the evenings"],
    "endocrinology": ["Fasting glucose readings above 180 at home", "Tired and cold, thyroid dose recently changed"],
}
EMERGENCY_SYMPTOMS = [
    ("Crushing chest pain spreading to left arm for 20 minutes", "chest_pain,difficulty_breathing", "cardiology"),
    ("Sudden weakness on right side and slurred speech", "stroke_symptoms", "internal_medicine"),
    ("Severe shortness of breath, lips look blue", "difficulty_breathing", "family_medicine"),
    ("Thoughts of ending my life, have a plan", "suicidal_ideation", "psychiatry"),
    ("Deep cut on hand that will not stop bleeding", "severe_bleeding", "family_medicine"),
    ("Fainted twice this morning", "loss_of_consciousness", "cardiology"),
]
PAYERS = [
    ("Summit Mutual Health", ["Silver PPO 2500", "Gold PPO 1000", "Bronze HMO 6000"]),
    ("Cascade Health Partners", ["Choice EPO 1500", "Value HMO 3000"]),
    ("Lakeshore Care Plan", ["Essential HMO", "Premier PPO"]),
    ("Meridian Health Alliance", ["Advantage Medicare PPO", "Advantage Medicare HMO"]),
    ("Pinecrest Family Health", ["Medicaid Managed Care"]),
    ("Harborview Employee Benefits", ["Open Access PPO", "HSA Bronze 7000"]),
]
DENIALS = ["Service not covered under plan for telehealth", "Missing or invalid diagnosis code",
           "Patient not eligible on date of service", "Duplicate claim submission", "Prior authorization required"]


APPEALS = [
    "Telehealth visits are covered under the plan's virtual care benefit; resubmitting with the visit documentation.",
    "The member was enrolled on the date of service; attaching the eligibility confirmation from the payer portal.",
    "Prior authorization is not required for an established-patient video follow-up under this plan.",
    "Corrected the diagnosis code on the visit note; please reprocess the claim.",
    "Visit notes show a synchronous audio-video encounter, which the plan lists as a covered telehealth service.",
]
# Each message topic is written in several ways, as real patients and clinicians write.
VARIANTS = {
    "Question about my prescription": [
        ("Should I take this with food? It upsets my stomach a little.",
         "Yes, take it with breakfast. If the nausea lasts more than a week, let me know."),
        ("Is it okay to take the new pill at night instead of the morning? I keep forgetting.",
         "Evening is fine as long as it's the same time every day."),
        ("Can I take ibuprofen while I'm on this medication?",
         "Occasional use is fine, but prefer acetaminophen for regular pain relief."),
        ("I missed yesterday's dose. Should I double up today?",
         "No, don't double up. Just take today's dose as usual."),
    ],
    "Lab results": [
        ("I saw my results are posted. Is anything concerning?",
         "Most values are in range. We'll go over the one flagged value at your follow-up."),
        ("My portal shows one value in red. What does that mean?",
         "It is slightly outside the reference range and not worrying on its own; we'll recheck in three months."),
        ("Did my cholesterol numbers come back yet?",
         "Yes, they came back this morning. LDL is a bit high; let's talk diet and options at your next visit."),
    ],
    "Follow-up timing": [
        ("When should I book my next visit?", "Please book a follow-up in about four weeks."),
        ("Do I need another appointment or are we done for now?",
         "Let's check in once more in six weeks to see how the new dose is working."),
        ("The summary says follow up soon. How soon is soon?",
         "Within two to three weeks; pick any open slot on my calendar."),
    ],
    "Side effects": [
        ("I've had a mild headache since starting the new medication.",
         "That's common in the first week. Stay hydrated; message me if it gets worse."),
        ("I've been dizzy when I stand up quickly since the dose change.",
         "Stand up slowly and drink more water. If you feel faint, call the clinic the same day."),
        ("My ankles look a little swollen in the evenings. Could it be the pills?",
         "It can be. Keep your feet up in the evening and we'll review the dose at your next visit."),
        ("I'm sleeping badly since I started the medicine.",
         "Try taking it in the morning instead; tell me in a week whether that helps."),
    ],
    "School/work note": [
        ("Could you send a note for the days I missed?", "I've added a note to your visit summary."),
        ("My employer needs a note saying I can return to work on Monday.",
         "Done. The return-to-work note is attached to your visit summary."),
        ("The school nurse asked for a note about the inhaler.",
         "I've written a school medication form; you can download it from the portal."),
    ],
    "Refill question": [
        ("My pharmacy says I'm out of refills. What should I do?",
         "Please book a short follow-up so we can review and renew it."),
        ("The pharmacy couldn't fill my prescription today. Is there a problem on your side?",
         "It was too early for a refill; you can pick it up from next week."),
        ("I'm travelling next month. Can I get an extra supply?",
         "I can't change the supply early, but you can refill as soon as the refill date comes up."),
    ],
    "Rash update": [
        ("The rash is fading but still itchy at night.", "Keep using the cream twice daily for one more week."),
        ("The spots on my arm are almost gone. Should I stop the cream?",
         "Finish the full two weeks even if it looks clear."),
        ("The rash spread a little to my neck yesterday.",
         "Send a photo through the portal and we'll decide whether you need to be seen sooner."),
    ],
    "Blood pressure log": [
        ("Home readings this week: 138/86, 142/88, 135/84.", "Thanks, those are improving. Keep logging daily."),
        ("This week's readings: 128/80, 131/82, 126/79 in the mornings.",
         "Those look good. Stay on the same dose."),
        ("Readings have been higher, around 150/95, since I ran out of salt-free meals.",
         "Cut back on salt again and send readings in a week; we may adjust the dose."),
    ],
}


# --------------------------------------------------------------------------- the shape of a live system
# Run after the world is drawn, from its own stream: the rows and their keys stay where `rng` put them;
# only wording (and a few statuses) change, so that the seed reads like a deployment, not a fixture.
shape_rng = random.Random(SEED + 2)

# Prescribers write a sig for the drug, not one line for every tablet. Keyed by how many doses a day
# the original line implied (the quantity was computed from it), so quantity and sig still agree.
SIGS = {
    "Amoxicillin 500 mg capsule": {2: ["Take 1 capsule by mouth every 12 hours until all are gone."],
                                   3: ["Take 1 capsule by mouth three times daily for 10 days, even if you feel better."],
                                   1: ["Take 1 capsule by mouth once daily until finished."]},
    "Cephalexin 500 mg capsule": {2: ["Take 1 capsule by mouth every 12 hours for the full course."],
                                  3: ["Take 1 capsule by mouth three times daily until finished."],
                                  1: ["Take 1 capsule by mouth daily with a full glass of water."]},
    "Doxycycline 100 mg capsule": {1: ["Take 1 capsule by mouth daily with a full glass of water; stay upright for 30 minutes."],
                                   2: ["Take 1 capsule by mouth twice daily with food; avoid strong sun."],
                                   3: ["Take 1 capsule by mouth three times daily with water."]},
    "Omeprazole 20 mg capsule": {1: ["Take 1 capsule by mouth 30 minutes before breakfast.",
                                     "Take 1 capsule by mouth every morning before eating."],
                                 2: ["Take 1 capsule by mouth twice daily, before breakfast and before dinner."],
                                 3: ["Take 1 capsule by mouth three times daily before meals."]},
    "Isotretinoin 20 mg capsule": {3: ["Take 1 capsule by mouth three times daily with meals; no pregnancy while on it."],
                                   2: ["Take 1 capsule by mouth twice daily with a fatty meal."],
                                   1: ["Take 1 capsule by mouth daily with dinner."]},
    "Cetirizine 10 mg tablet": {1: ["Take 1 tablet by mouth once daily as needed for allergy symptoms.",
                                    "Take 1 tablet by mouth at bedtime; may cause drowsiness."],
                                2: ["Take 1 tablet by mouth twice daily during allergy flares.",
                                    "Take 1 tablet by mouth every 12 hours as needed for itching.",
                                    "Take 1 tablet morning and evening while pollen counts are high."]},
    "Lisinopril 10 mg tablet": {1: ["Take 1 tablet by mouth every morning for blood pressure.",
                                    "Take 1 tablet by mouth daily; check your blood pressure at home twice a week."],
                                2: ["Take 1 tablet by mouth twice daily, morning and evening."]},
    "Azithromycin 250 mg tablet": {1: ["Take 1 tablet by mouth daily at the same time until finished.",
                                       "Take 1 tablet by mouth once a day for 5 days."],
                                   2: ["Take 1 tablet by mouth twice daily with food until finished."]},
    "Fluconazole 150 mg tablet": {1: ["Take 1 tablet by mouth once; repeat in 3 days if symptoms remain."],
                                  2: ["Take 1 tablet by mouth twice daily with or without food."]},
    "Metformin 500 mg tablet": {1: ["Take 1 tablet by mouth with the evening meal.",
                                    "Take 1 tablet by mouth with breakfast; increase only as directed.",
                                    "Take 1 tablet by mouth daily with food to limit stomach upset."],
                                2: ["Take 1 tablet by mouth twice daily with breakfast and dinner."]},
    "Metformin ER 750 mg tablet": {1: ["Take 1 tablet by mouth with dinner; swallow whole.",
                                       "Take 1 extended-release tablet daily with the evening meal."],
                                   2: ["Take 1 tablet by mouth twice daily with meals; do not crush."]},
    "Levothyroxine 50 mcg tablet": {1: ["Take 1 tablet by mouth every morning on an empty stomach, 30 minutes before breakfast."]},
    "Levothyroxine 75 mcg tablet": {1: ["Take 1 tablet by mouth on waking with water; wait 30 to 60 minutes before eating."],
                                    2: ["Take 1 tablet by mouth twice daily as directed while the dose is adjusted."]},
    "Atorvastatin 20 mg tablet": {1: ["Take 1 tablet by mouth once daily in the evening."]},
    "Atorvastatin 40 mg tablet": {1: ["Take 1 tablet by mouth daily at bedtime for cholesterol."]},
    "Trazodone 50 mg tablet": {1: ["Take 1 tablet by mouth at bedtime as needed for sleep.",
                                   "Take 1 tablet by mouth 30 minutes before bed."]},
    "Warfarin 5 mg tablet": {1: ["Take 1 tablet by mouth every evening, or as directed by the anticoagulation clinic."]},
    "Sumatriptan 50 mg tablet": {1: ["Take 1 tablet by mouth at the start of a migraine; may repeat once after 2 hours."]},
    "Naproxen 500 mg tablet": {1: ["Take 1 tablet by mouth once daily with food as needed for pain."],
                               2: ["Take 1 tablet by mouth twice daily with food for up to 10 days."]},
    "Ciprofloxacin 500 mg tablet": {1: ["Take 1 tablet by mouth daily; keep 2 hours apart from antacids."],
                                    2: ["Take 1 tablet by mouth every 12 hours until finished."]},
    "Methylphenidate ER 18 mg tablet": {1: ["Take 1 tablet by mouth every morning; do not take after noon."]},
    "Amphetamine salts 10 mg tablet": {2: ["Take 1 tablet by mouth in the morning and 1 at lunchtime."],
                                       1: ["Take 1 tablet by mouth every morning."]},
    "Alprazolam 0.5 mg tablet": {2: ["Take 1 tablet by mouth twice daily as needed for anxiety; do not drive after a dose."],
                                 1: ["Take 1 tablet by mouth at bedtime as needed for anxiety."]},
    "Escitalopram 10 mg tablet": {1: ["Take 1 tablet by mouth every morning."],
                                  2: ["Take half a tablet twice daily for the first week, then as directed."]},
    "Sertraline 50 mg tablet": {1: ["Take 1 tablet by mouth daily with breakfast."]},
    "Amlodipine 5 mg tablet": {1: ["Take 1 tablet by mouth daily for blood pressure."],
                               2: ["Take 1 tablet by mouth twice daily; report ankle swelling."]},
    "Apixaban 5 mg tablet": {2: ["Take 1 tablet by mouth every 12 hours; do not skip doses."]},
    "Metoprolol succinate ER 50 mg tablet": {1: ["Take 1 tablet by mouth daily; do not stop suddenly."],
                                             2: ["Take 1 tablet by mouth twice daily with food; do not stop suddenly."]},
    "Losartan 50 mg tablet": {1: ["Take 1 tablet by mouth nightly for blood pressure."]},
    "Spironolactone 25 mg tablet": {1: ["Take 1 tablet by mouth in the evening; avoid potassium supplements."],
                                    2: ["Take 1 tablet by mouth twice daily with food."]},
    "Hydrocortisone 2.5% cream": {0: ["Apply a thin layer to affected skin twice daily.",
                                      "Apply a thin layer to the rash twice a day for up to 2 weeks.",
                                      "Rub a small amount into itchy patches morning and night; not on the face.",
                                      "Apply to the eczema patches twice daily; stop when the skin clears.",
                                      "Apply thinly to the affected area up to twice daily for 7 days."]},
    "Tretinoin 0.05% cream": {0: ["Apply a pea-sized amount to the whole face at bedtime; use sunscreen daily."]},
    "Fluticasone 50 mcg nasal spray": {0: ["Use 2 sprays in each nostril once daily.",
                                           "Spray twice in each nostril every morning, aiming away from the septum.",
                                           "Use 1 spray in each nostril twice daily during allergy season."]},
}
# Payers word the same denial in their own ways; each category keeps its meaning.
DENIAL_WORDING = {
    "Service not covered under plan for telehealth": [
        "Service not covered under plan for telehealth", "Telehealth visits are not a covered benefit on this plan",
        "Place of service 02 (telehealth) not covered for this procedure code"],
    "Missing or invalid diagnosis code": [
        "Missing or invalid diagnosis code", "Diagnosis code not specific enough for the billed service",
        "Diagnosis does not support the level of service billed"],
    "Patient not eligible on date of service": [
        "Patient not eligible on date of service", "Member coverage could not be verified for the date of service",
        "Member ID not found on the payer's eligibility file", "Eligibility not confirmed: subscriber information mismatch"],
    "Duplicate claim submission": [
        "Duplicate claim submission", "Claim duplicates one already processed for this date of service"],
    "Prior authorization required": [
        "Prior authorization required", "No prior authorization on file for this service",
        "Specialist visit requires a referral from the primary care provider"],
}
APPEAL_WORDING = {
    "Service not covered under plan for telehealth": [
        "Telehealth visits are covered under the plan's virtual care benefit; resubmitting with the visit documentation.",
        "Visit notes show a synchronous audio-video encounter, which the plan lists as a covered telehealth service."],
    "Missing or invalid diagnosis code": ["Corrected the diagnosis code on the visit note; please reprocess the claim."],
    "Patient not eligible on date of service": [
        "The member was enrolled on the date of service; attaching the eligibility confirmation from the payer portal.",
        "My coverage was active that day; my member card and the plan's confirmation letter are attached."],
    "Duplicate claim submission": ["This is not a duplicate: the earlier claim was for a different visit date."],
    "Prior authorization required": [
        "Prior authorization is not required for an established-patient video follow-up under this plan.",
        "The referral from my primary care doctor was on file before the visit; a copy is attached."],
}
# Patients describe the same kind of visit in their own words.
REASON_WORDING = {
    "Mood check after dose change": ["Mood check after dose change", "Checking in two weeks after my dose went up",
                                     "Follow-up on mood since the new dose", "Still feeling low after the dose change",
                                     "Review how the higher dose is going"],
    "Blood pressure follow-up": ["Blood pressure follow-up", "Going over my home blood pressure log",
                                 "BP check since starting the new pill"],
    "Type 2 diabetes follow-up": ["Type 2 diabetes follow-up", "Sugars running high in the mornings",
                                  "Diabetes check-in and glucose log review"],
    "Seasonal allergies flaring": ["Seasonal allergies flaring", "Itchy eyes and sneezing since the pollen started",
                                   "Hay fever worse than usual this spring"],
    "Hypertension management": ["Hypertension management", "Blood pressure still high on current pills"],
    "Annual medication review": ["Annual medication review", "Yearly review of my prescriptions"],
    "Ear pain and fever": ["Ear pain and fever", "My son has an earache and a temperature"],
    "Thyroid dose adjustment": ["Thyroid dose adjustment", "Feeling tired again on the current levothyroxine dose"],
    "Painful urination since yesterday": ["Painful urination since yesterday", "Burning when I pee, started last night"],
    "High blood pressure despite medication": ["High blood pressure despite medication",
                                               "Readings above 150 even on two medications"],
}
# Triages answered with self-care advice the day after they came in: most triages in a live queue are settled.
ADVISED_TRIAGES = ("TRI-00033", "TRI-00034", "TRI-00035", "TRI-00036")


def _doses(line: str, form: str) -> int:
    if form in ("cream", "nasal_spray"):
        return 0
    return 2 if "twice" in line else 3 if "three" in line else 1


def reshape(meds: list[dict], triage: list[dict], appointments: list[dict], prescriptions: list[dict],
            claims: list[dict]) -> None:
    by_id = {m["medication_id"]: m for m in meds}
    for row in prescriptions:
        med = by_id[row["medication_id"]]
        options = SIGS.get(med["name"], {}).get(_doses(row["dosage_instructions"], med["form"]))
        if options:
            row["dosage_instructions"] = shape_rng.choice(options)
    turn: dict[str, int] = {}
    for row in claims:
        category = row["denial_reason"]
        if category is None:
            continue
        words = DENIAL_WORDING[category]
        row["denial_reason"] = words[turn.get(category, 0) % len(words)]
        turn[category] = turn.get(category, 0) + 1
        if row["appeal_reason"] is not None:
            row["appeal_reason"] = shape_rng.choice(APPEAL_WORDING[category])
    seen: dict[str, int] = {}
    for row in appointments:
        words = REASON_WORDING.get(row["reason"])
        if words is None:
            continue
        original = row["reason"]
        reason = words[seen.get(original, 0) % len(words)]
        seen[original] = seen.get(original, 0) + 1
        row["reason"] = reason  # the clinician's note keeps the clinical wording
    for row in triage:
        if row["triage_id"] in ADVISED_TRIAGES and row["status"] == "open":
            row["status"] = "closed"


def main() -> None:
    patients = make_patients()
    clinicians = make_clinicians(patients)
    meds = make_medications()
    med_by_name = {m["name"]: m for m in meds}
    interactions = make_interactions(meds)
    pair_severity = {}
    for row in interactions:
        pair_severity[(row["medication_id"], row["interacting_medication_id"])] = row["severity"]
        pair_severity[(row["interacting_medication_id"], row["medication_id"])] = row["severity"]

    def eligible(patient: dict, clinician: dict, on: date) -> bool:
        if patient["state"] not in clinician["licensed_states"].split(","):
            return False
        age = age_of(patient, on)
        if clinician["specialty"] == "pediatrics":
            return age < 18
        if clinician["specialty"] == "family_medicine":
            return True
        return age >= 18

    # ---------------------------------------------------------------- slots and appointments
    slots: list[dict] = []
    appointments: list[dict] = []
    busy: dict[str, list[tuple[datetime, datetime]]] = {}
    patient_busy: set[tuple[str, str]] = set()

    def weekday(start: date, end: date) -> date:
        while True:
            day = start + timedelta(days=rng.randint(0, (end - start).days))
            if day.weekday() < 5:
                return day

    def free(clinician_id: str, start: datetime, minutes: int) -> bool:
        end = start + timedelta(minutes=minutes)
        return all(end <= s or start >= e for s, e in busy.get(clinician_id, []))

    def add_slot(clinician: dict, start: datetime, minutes: int, status: str) -> dict:
        busy.setdefault(clinician["clinician_id"], []).append((start, start + timedelta(minutes=minutes)))
        row = {"slot_id": "", "clinician_id": clinician["clinician_id"], "starts_at": iso(start),
               "duration_minutes": minutes, "status": status}
        slots.append(row)
        return row

    def duration_for(clinician: dict) -> int:
        return {"psychiatry": rng.choice([45, 60]), "dermatology": rng.choice([15, 20]),
                "cardiology": 30, "endocrinology": rng.choice([30, 45])}.get(clinician["specialty"], rng.choice([20, 30]))

    def random_start(clinician: dict, first: date, last: date, minutes: int) -> datetime:
        for _ in range(200):
            day = weekday(first, last)
            hour = rng.randint(8, 16)
            start = datetime(day.year, day.month, day.day, hour, rng.choice([0, 30]))
            if free(clinician["clinician_id"], start, minutes):
                return start
        raise RuntimeError("no free time")

    active_patients = [p for p in patients if p["status"] == "active"]
    booked_plan: list[tuple[dict, dict, str]] = []  # (slot, clinician, kind)
    for clinician in clinicians:
        if clinician["status"] == "inactive":
            # past visits only
            past_n, future_open, future_booked = 2, 0, 0
            last_day = date(2026, 2, 27)
        elif clinician["status"] == "on_leave":
            past_n, future_open, future_booked = 3, 0, 0
            last_day = date(2026, 4, 30)
        else:
            past_n, future_open, future_booked = rng.randint(3, 4), rng.randint(2, 4), rng.randint(1, 2)
            last_day = TODAY - timedelta(days=1)
        for _ in range(past_n):
            minutes = duration_for(clinician)
            start = random_start(clinician, HISTORY_START, last_day, minutes)
            booked_plan.append((add_slot(clinician, start, minutes, "booked"), clinician, "past"))
        for _ in range(future_open):
            minutes = duration_for(clinician)
            start = random_start(clinician, TODAY + timedelta(days=1), FUTURE_END, minutes)
            add_slot(clinician, start, minutes, "open")
        for _ in range(future_booked):
            minutes = duration_for(clinician)
            start = random_start(clinician, TODAY + timedelta(days=1), FUTURE_END, minutes)
            booked_plan.append((add_slot(clinician, start, minutes, "booked"), clinician, "future"))
    # today's clinic: a checked-in visit in progress, visits due for check-in, a later one
    today_specs = [(1, "10:15", 30, "checked_in"), (3, "10:30", 30, "scheduled"), (12, "10:45", 45, "scheduled"),
                   (7, "10:00", 30, "checked_in"), (9, "13:30", 30, "scheduled"), (14, "09:00", 30, "completed"),
                   (22, "11:00", 30, "scheduled"), (2, "15:00", 20, "open"), (16, "16:00", 30, "open"),
                   (5, "08:30", 30, "completed")]
    for number, hhmm, minutes, kind in today_specs:
        clinician = clinicians[number - 1]
        hour, minute = map(int, hhmm.split(":"))
        start = datetime(2026, 5, 12, hour, minute)
        if not free(clinician["clinician_id"], start, minutes):
            continue
        if kind == "open":
            add_slot(clinician, start, minutes, "open")
        else:
            booked_plan.append((add_slot(clinician, start, minutes, "booked"), clinician, "today:" + kind))
    # blocked slots (clinician unavailable)
    for clinician in rng.sample([c for c in clinicians if c["status"] == "active"], 6):
        minutes = duration_for(clinician)
        add_slot(clinician, random_start(clinician, TODAY + timedelta(days=1), FUTURE_END, minutes), minutes, "blocked")
    # cancelled visits whose slot was reopened
    cancelled_plan = []
    for clinician in rng.sample([c for c in clinicians if c["status"] == "active"], 12):
        minutes = duration_for(clinician)
        past = rng.random() < 0.5
        start = random_start(clinician, HISTORY_START if past else TODAY + timedelta(days=1),
                             TODAY - timedelta(days=1) if past else FUTURE_END, minutes)
        cancelled_plan.append((add_slot(clinician, start, minutes, "open"), clinician))

    slots.sort(key=lambda s: (s["starts_at"], s["clinician_id"]))
    for index, slot in enumerate(slots, start=1):
        slot["slot_id"] = pid("SLT", index)

    def pick_patient(clinician: dict, start: datetime, pool: list[dict]) -> dict | None:
        options = [p for p in pool if eligible(p, clinician, start.date())
                   and (p["patient_id"], iso(start)) not in patient_busy]
        if not options:
            return None
        # favour a small set of frequent patients so histories overlap
        weights = [3 if int(p["patient_id"][-5:]) <= 12 else 1 for p in options]
        return rng.choices(options, weights=weights)[0]

    plan = sorted(booked_plan, key=lambda item: item[0]["starts_at"])
    seen_pairs: set[tuple[str, str]] = set()
    pending = []
    for slot, clinician, kind in plan:
        start = datetime.fromisoformat(slot["starts_at"])
        pool = active_patients if kind != "past" else patients
        patient = pick_patient(clinician, start, pool)
        if patient is None:
            slot["status"] = "open" if start > NOW else "blocked"
            continue
        patient_busy.add((patient["patient_id"], slot["starts_at"]))
        pair = (patient["patient_id"], clinician["clinician_id"])
        visit_type = "follow_up" if pair in seen_pairs else "new_patient"
        if kind == "past":
            status = "no_show" if rng.random() < 0.07 else "completed"
            if status == "completed":
                seen_pairs.add(pair)
        elif kind == "future":
            status = "scheduled"
        else:
            status = kind.split(":")[1]
            if status == "completed":
                seen_pairs.add(pair)
        pending.append((slot, clinician, patient, status, visit_type))
    for slot, clinician in cancelled_plan:
        start = datetime.fromisoformat(slot["starts_at"])
        patient = pick_patient(clinician, start, active_patients)
        if patient is None:
            continue
        pending.append((slot, clinician, patient, "cancelled", "new_patient"))
    pending.sort(key=lambda item: (item[0]["starts_at"], item[0]["slot_id"]))

    for number, (slot, clinician, patient, status, visit_type) in enumerate(pending, start=1):
        start = datetime.fromisoformat(slot["starts_at"])
        reason = rng.choice(REASONS[clinician["specialty"]])
        booked_at = start - timedelta(days=rng.randint(2, 21), hours=rng.randint(0, 9), minutes=rng.choice([0, 15, 40]))
        if booked_at > NOW:
            booked_at = NOW - timedelta(hours=rng.randint(3, 40))
        row = {
            "appointment_id": pid("APT", number),
            "patient_id": patient["patient_id"],
            "clinician_id": clinician["clinician_id"],
            "slot_id": slot["slot_id"],
            "triage_id": None,
            "scheduled_at": slot["starts_at"],
            "visit_type": visit_type,
            "reason": reason,
            "status": status,
            "fee": clinician["visit_fee"],
            "cancellation_fee": 0.0,
            "reschedule_count": rng.choice([0, 0, 0, 0, 1]) if status != "cancelled" else 0,
            "booked_at": iso(booked_at),
            "checked_in_at": None,
            "diagnosis_code": None,
            "visit_notes": None,
            "cancel_reason": None,
        }
        if status in ("completed", "checked_in"):
            row["checked_in_at"] = iso(start - timedelta(minutes=rng.randint(1, 9)))
        if status == "completed":
            row["diagnosis_code"] = rng.choice(DIAGNOSES[clinician["specialty"]])
            template = rng.choice(NOTE_TEMPLATES)
            row["visit_notes"] = template.replace("{reason}", reason).replace("{reason_l}", reason.lower())
        if status == "cancelled":
            row["cancel_reason"] = rng.choice(["Work conflict", "Feeling better", "Booked the wrong clinician",
                                               "Childcare fell through", "Found an in-person appointment"])
            if rng.random() < 0.3:
                row["cancellation_fee"] = 25.0
        appointments.append(row)

    # ---------------------------------------------------------------- triage
    triage: list[dict] = []

    def add_triage(patient_id: str, submitted: datetime, symptoms: str, severity: int, flags: str, specialty: str,
                   status: str) -> dict:
        acuity = "emergency" if flags else ("urgent" if severity >= 7 else "routine")
        row = {"triage_id": "", "patient_id": patient_id, "submitted_at": iso(submitted), "symptoms": symptoms,
               "severity": severity, "red_flags": flags, "acuity": acuity, "recommended_specialty": specialty,
               "status": status}
        triage.append(row)
        return row

    clin_by_id = {c["clinician_id"]: c for c in clinicians}
    linkable = [a for a in appointments if a["status"] in ("completed", "scheduled", "checked_in")]
    for appt in rng.sample(linkable, 24):
        clinician = clin_by_id[appt["clinician_id"]]
        start = datetime.fromisoformat(appt["scheduled_at"])
        urgent = rng.random() < 0.35
        submitted = start - timedelta(hours=rng.randint(3, 40) if urgent else rng.randint(50, 200))
        if submitted > NOW:
            submitted = NOW - timedelta(hours=rng.randint(2, 20))
        if urgent and start - submitted > timedelta(hours=48):
            urgent = False
        # the visit was booked after the triage was submitted
        appt["booked_at"] = iso(max(datetime.fromisoformat(appt["booked_at"]), submitted + timedelta(minutes=25)))
        severity = rng.randint(7, 8) if urgent else rng.randint(2, 6)
        status = "closed" if appt["status"] == "completed" else "scheduled"
        row = add_triage(appt["patient_id"], submitted, rng.choice(TRIAGE_SYMPTOMS[clinician["specialty"]]), severity,
                         "", clinician["specialty"], status)
        appt["triage_pending"] = row
        if urgent and appt["status"] != "completed":
            appt["visit_type"] = "urgent_care"
    for _ in range(12):
        patient = rng.choice(active_patients)
        specialty = rng.choice(list(TRIAGE_SYMPTOMS))
        if age_of(patient, TODAY) < 18:
            specialty = rng.choice(["pediatrics", "family_medicine"])
        if any(t["patient_id"] == patient["patient_id"] and t["status"] == "open" and t["recommended_specialty"] == specialty
               for t in triage):
            continue
        severity = rng.choice([3, 4, 5, 6, 7, 8])
        submitted = NOW - timedelta(hours=rng.randint(1, 70))
        add_triage(patient["patient_id"], submitted, rng.choice(TRIAGE_SYMPTOMS[specialty]), severity, "", specialty, "open")
    for symptoms, flags, specialty in EMERGENCY_SYMPTOMS:
        patient = rng.choice([p for p in active_patients if age_of(p, TODAY) >= 18])
        add_triage(patient["patient_id"], NOW - timedelta(days=rng.randint(0, 60), hours=rng.randint(1, 9)), symptoms,
                   rng.randint(8, 10), flags, specialty, "referred_er")
    for _ in range(4):  # closed without a visit (resolved by self-care advice)
        patient = rng.choice(active_patients)
        specialty = "pediatrics" if age_of(patient, TODAY) < 18 else rng.choice(["family_medicine", "dermatology"])
        add_triage(patient["patient_id"], NOW - timedelta(days=rng.randint(10, 90)), rng.choice(TRIAGE_SYMPTOMS[specialty]),
                   rng.randint(1, 3), "", specialty, "closed")
    triage.sort(key=lambda t: (t["submitted_at"], t["patient_id"]))
    for index, row in enumerate(triage, start=1):
        row["triage_id"] = pid("TRI", index)
    for appt in appointments:
        linked = appt.pop("triage_pending", None)
        if linked is not None:
            appt["triage_id"] = linked["triage_id"]

    # ---------------------------------------------------------------- coverages
    coverages: list[dict] = []
    for patient in patients:
        senior = age_of(patient, TODAY) >= 65
        payer, plans = PAYERS[3] if senior else rng.choice([p for p in PAYERS if "Medicare" not in p[1][0]])
        plan = rng.choice(plans)
        member = f"{payer.split()[0][:3].upper()}{rng.randint(10000000, 99999999)}"
        copay = float(rng.choice([0, 10, 15, 20, 25, 30, 40, 50]))
        number = int(patient["patient_id"][-5:])
        if number % 5 == 0 or number in (1, 2, 8):
            # an older plan that ended, then the current one (or none for self-pay patients)
            old_payer, old_plans = rng.choice([p for p in PAYERS if ("Medicare" in p[1][0]) == senior])
            ended = date(2026, rng.choice([1, 2, 3]), rng.randint(1, 27))
            coverages.append({"coverage_id": "", "patient_id": patient["patient_id"], "payer_name": old_payer,
                              "plan_name": rng.choice(old_plans),
                              "member_number": f"{old_payer.split()[0][:3].upper()}{rng.randint(10000000, 99999999)}",
                              "telehealth_copay": float(rng.choice([20, 25, 35])), "status": "terminated",
                              "effective_from": date(2024, rng.randint(1, 12), 1).isoformat(),
                              "effective_to": ended.isoformat()})
            if number % 10 == 0:
                continue  # self-pay now
            start = ended + timedelta(days=1)
        else:
            start = date(rng.choice([2024, 2025]), rng.choice([1, 1, 4, 7, 10]), 1)
        coverages.append({"coverage_id": "", "patient_id": patient["patient_id"], "payer_name": payer, "plan_name": plan,
                          "member_number": member, "telehealth_copay": copay, "status": "active",
                          "effective_from": start.isoformat(), "effective_to": None})
    coverages.sort(key=lambda c: (c["patient_id"], c["effective_from"]))
    for index, row in enumerate(coverages, start=1):
        row["coverage_id"] = pid("COV", index)

    def coverage_on(patient_id: str, on: str) -> dict | None:
        for cov in coverages:
            if cov["patient_id"] == patient_id and cov["effective_from"] <= on and (
                    cov["effective_to"] is None or cov["effective_to"] >= on):
                return cov
        return None

    # ---------------------------------------------------------------- prescriptions
    prescriptions: list[dict] = []
    patient_by_id = {p["patient_id"]: p for p in patients}
    completed = sorted([a for a in appointments if a["status"] == "completed"], key=lambda a: a["scheduled_at"])
    for appt in completed:
        if rng.random() > 0.62:
            continue
        clinician = clin_by_id[appt["clinician_id"]]
        patient = patient_by_id[appt["patient_id"]]
        allergies = set(filter(None, patient["allergies"].split(",")))
        on = appt["scheduled_at"][:10]
        active = [r for r in prescriptions if r["patient_id"] == patient["patient_id"] and r["status"] == "active"]
        choices = list(SPECIALTY_MEDS[clinician["specialty"]])
        rng.shuffle(choices)
        for name in choices:
            med = med_by_name[name]
            if med["drug_class"] in allergies:
                continue
            if med["controlled_schedule"] and not clinician["can_prescribe_controlled"]:
                continue
            if any(r["medication_id"] == med["medication_id"] for r in active):
                continue
            if any(pair_severity.get((r["medication_id"], med["medication_id"])) == "major" for r in active):
                continue
            break
        else:
            continue
        acute = med["max_refills"] == 0 and not med["controlled_schedule"]
        days_supply = rng.choice([5, 7, 10]) if acute else (30 if med["controlled_schedule"] else rng.choice([30, 30, 90]))
        dosage = rng.choice(DOSAGE[med["form"]])
        quantity = days_supply * (2 if "twice" in dosage else 3 if "three" in dosage else 1)
        if med["form"] in ("cream", "inhaler", "nasal_spray", "injection_pen"):
            quantity = 1 if med["form"] != "injection_pen" else 4
        refills = 0 if med["max_refills"] == 0 else rng.randint(1, min(5, med["max_refills"]))
        prescribed = date.fromisoformat(on)
        expiry_days = 90 if med["controlled_schedule"] == 2 else (180 if med["controlled_schedule"] else 365)
        expires = prescribed + timedelta(days=expiry_days)
        elapsed = (TODAY - prescribed).days
        fills = min(refills, elapsed // days_supply)
        if fills and rng.random() < 0.3:
            fills -= 1
        last_filled = prescribed + timedelta(days=fills * days_supply + rng.randint(0, 3))
        last_filled = min(last_filled, TODAY)
        status = "active"
        reason = None
        if expires < TODAY:
            status = "expired"
        elif acute and elapsed > days_supply:
            status = "completed"
        elif refills and fills >= refills and elapsed > (fills + 1) * days_supply:
            status = "completed"
        elif rng.random() < 0.1:
            status = "discontinued"
            reason = rng.choice(["Side effects: nausea", "Switched to a different medication", "Patient request",
                                 "No longer needed"])
        prescriptions.append({
            "prescription_id": "", "patient_id": patient["patient_id"], "clinician_id": clinician["clinician_id"],
            "medication_id": med["medication_id"], "appointment_id": appt["appointment_id"],
            "dosage_instructions": dosage, "quantity": quantity, "days_supply": days_supply,
            "refills_allowed": refills, "refills_used": fills, "status": status, "prescribed_on": on,
            "expires_on": expires.isoformat(), "last_filled_on": last_filled.isoformat(), "discontinued_reason": reason})
    for index, row in enumerate(prescriptions, start=1):
        row["prescription_id"] = pid("RX", index)

    # ---------------------------------------------------------------- lab orders and results
    lab_orders: list[dict] = []
    lab_results: list[dict] = []
    candidates = [a for a in appointments if a["status"] in ("completed", "checked_in")]
    for appt in candidates:
        recent = (TODAY - date.fromisoformat(appt["scheduled_at"][:10])).days <= 14
        if rng.random() > (0.85 if recent else 0.4):
            continue
        clinician = clin_by_id[appt["clinician_id"]]
        test = rng.choice(SPECIALTY_LABS[clinician["specialty"]])
        if any(o["patient_id"] == appt["patient_id"] and o["test_code"] == test and o["status"] in ("ordered", "collected")
               for o in lab_orders):
            continue
        ordered = date.fromisoformat(appt["scheduled_at"][:10])
        priority = "stat" if rng.random() < 0.12 else "routine"
        age = (TODAY - ordered).days
        if age > 12:
            status = "cancelled" if rng.random() < 0.08 else "resulted"
        elif age > 1:
            status = rng.choice(["ordered", "collected", "collected", "resulted"])
        else:
            status = "ordered"
        collected = resulted = None
        if status in ("collected", "resulted"):
            collected = min(ordered + timedelta(days=rng.randint(0, 2)), TODAY)
        if status == "resulted":
            resulted = collected + timedelta(days=rng.randint(1, 3))
            if resulted > TODAY:
                resulted = TODAY
        lab_orders.append({
            "lab_order_id": "", "patient_id": appt["patient_id"], "clinician_id": appt["clinician_id"],
            "appointment_id": appt["appointment_id"], "test_code": test, "priority": priority, "status": status,
            "ordered_on": ordered.isoformat(), "collected_on": collected.isoformat() if collected else None,
            "resulted_on": resulted.isoformat() if resulted else None,
            "price": LAB_PRICES[test] + (STAT_SURCHARGE if priority == "stat" else 0.0)})
    for index, row in enumerate(lab_orders, start=1):
        row["lab_order_id"] = pid("LAB", index)
    number = 0
    for order in lab_orders:
        if order["status"] != "resulted":
            continue
        for analyte, unit, low, high in LAB_PANELS[order["test_code"]]:
            span = high - low if high > low else high
            roll = rng.random()
            if roll < 0.15:
                value = high + span * rng.uniform(0.05, 0.4)
            elif roll < 0.22 and low > 0:
                value = low - (low * rng.uniform(0.05, 0.25))
            else:
                value = low + span * rng.uniform(0.1, 0.9) if low > 0 else high * rng.uniform(0.3, 0.95)
            decimals = 1 if high < 20 else 0
            value = round(value, decimals) if decimals else float(round(value))
            flag = "high" if value > high else ("low" if value < low else "normal")
            number += 1
            lab_results.append({"result_id": pid("RES", number), "lab_order_id": order["lab_order_id"], "analyte": analyte,
                                "value": value, "unit": unit, "reference_low": low, "reference_high": high, "flag": flag})

    # ---------------------------------------------------------------- claims
    claims: list[dict] = []
    for appt in completed:
        cov = coverage_on(appt["patient_id"], appt["scheduled_at"][:10])
        if cov is None or rng.random() < 0.17:
            continue
        visit = date.fromisoformat(appt["scheduled_at"][:10])
        age = (TODAY - visit).days
        fee = appt["fee"]
        patient_part = min(cov["telehealth_copay"], fee)
        if age > 60:
            status = rng.choice(["paid", "paid", "paid", "denied", "appealed", "approved"])
        elif age > 20:
            status = rng.choice(["approved", "paid", "denied", "submitted", "submitted"])
        elif age > 3:
            status = rng.choice(["submitted", "submitted", "draft", "denied"])
        else:
            status = "draft"
        created = min(visit + timedelta(days=rng.randint(0, 2)), TODAY)
        submitted = decided = None
        denial = appeal = None
        if status != "draft":
            submitted = min(created + timedelta(days=rng.randint(0, 3)), TODAY)
        if status in ("approved", "paid", "denied", "appealed"):
            decided = submitted + timedelta(days=rng.randint(7, 25))
            if decided > TODAY:
                decided = TODAY - timedelta(days=1)
        if status in ("denied", "appealed"):
            denial = rng.choice(DENIALS)
        if status == "appealed":
            appeal = text_rng.choice(APPEALS)
        claims.append({
            "claim_id": "", "appointment_id": appt["appointment_id"], "patient_id": appt["patient_id"],
            "coverage_id": cov["coverage_id"], "amount_billed": fee, "patient_responsibility": patient_part,
            "payer_amount": round(fee - patient_part, 2), "status": status, "created_on": created.isoformat(),
            "submitted_on": submitted.isoformat() if submitted else None,
            "decided_on": decided.isoformat() if decided else None, "denial_reason": denial, "appeal_reason": appeal})
    for index, row in enumerate(claims, start=1):
        row["claim_id"] = pid("CLM", index)

    # ---------------------------------------------------------------- messages
    messages: list[dict] = []
    pairs = sorted({(a["patient_id"], a["clinician_id"], a["scheduled_at"]) for a in appointments
                    if a["status"] in ("completed", "scheduled", "checked_in")}, key=lambda x: (x[2], x[0], x[1]))
    topics = [
        ("Question about my prescription", "Should I take this with food? It upsets my stomach a little.",
         "Yes, take it with breakfast. If the nausea lasts more than a week, let me know."),
        ("Lab results", "I saw my results are posted. Is anything concerning?",
         "Most values are in range. We'll go over the one flagged value at your follow-up."),
        ("Follow-up timing", "When should I book my next visit?", "Please book a follow-up in about four weeks."),
        ("Side effects", "I've had a mild headache since starting the new medication.",
         "That's common in the first week. Stay hydrated; message me if it gets worse."),
        ("School/work note", "Could you send a note for the days I missed?", "I've added a note to your visit summary."),
        ("Refill question", "My pharmacy says I'm out of refills. What should I do?",
         "Please book a short follow-up so we can review and renew it."),
        ("Rash update", "The rash is fading but still itchy at night.", "Keep using the cream twice daily for one more week."),
        ("Blood pressure log", "Home readings this week: 138/86, 142/88, 135/84.",
         "Thanks, those are improving. Keep logging daily."),
    ]
    chosen = rng.sample(pairs, 34)
    for patient_id, clinician_id, when in sorted(chosen, key=lambda x: (x[2], x[0], x[1])):
        subject, question, answer = rng.choice(topics)
        question, answer = text_rng.choice(VARIANTS[subject])
        visit = datetime.fromisoformat(when)
        # patients write between 07:00 and 22:00: after a past visit, or before an upcoming one
        base = visit.date() + timedelta(days=rng.randint(1, 6)) if visit <= NOW else TODAY - timedelta(days=rng.randint(0, 3))
        sent = datetime.combine(base, time(rng.randint(7, 21), rng.choice([0, 15, 30, 45])))
        if sent > NOW:
            sent -= timedelta(days=(sent.date() - TODAY).days + 1)
        first = {"message_id": "", "patient_id": patient_id, "clinician_id": clinician_id, "sender": "patient",
                 "subject": subject, "body": question, "sent_at": iso(sent), "read_at": None,
                 "reply_to_message_id": None}
        messages.append(first)
        # clinicians answer in clinic hours: the same afternoon, or the next morning
        if sent.hour < 15:
            reply_time = sent + timedelta(hours=rng.randint(1, 3), minutes=rng.choice([5, 20, 35]))
        else:
            reply_time = datetime.combine(sent.date() + timedelta(days=1), time(9, 0)) + timedelta(
                minutes=rng.randint(0, 150))
        if reply_time < NOW and rng.random() < 0.75:
            first["read_at"] = iso(max(sent + timedelta(minutes=1), reply_time - timedelta(minutes=rng.randint(5, 40))))
            reply = {"message_id": "", "patient_id": patient_id, "clinician_id": clinician_id, "sender": "clinician",
                     "subject": "Re: " + subject, "body": answer, "sent_at": iso(reply_time), "read_at": None,
                     "reply_to_message_id": first}
            if rng.random() < 0.6 and reply_time + timedelta(hours=3) < NOW:
                reply["read_at"] = iso(reply_time + timedelta(hours=rng.randint(1, 3)))
            messages.append(reply)
    messages.sort(key=lambda m: m["sent_at"])
    for index, row in enumerate(messages, start=1):
        row["message_id"] = pid("MSG", index)
    for row in messages:
        if isinstance(row["reply_to_message_id"], dict):
            row["reply_to_message_id"] = row["reply_to_message_id"]["message_id"]

    reshape(meds, triage, appointments, prescriptions, claims)

    seed = {
        "patients": patients, "clinicians": clinicians, "availability_slots": slots,
        "triage_assessments": triage, "appointments": appointments, "medications": meds,
        "drug_interactions": interactions, "prescriptions": prescriptions, "lab_orders": lab_orders,
        "lab_results": lab_results, "coverages": coverages, "claims": claims, "messages": messages,
    }
    OUT.write_text(json.dumps(seed, indent=1, ensure_ascii=False) + "\n")
    counts = {name: len(rows) for name, rows in seed.items()}
    print(json.dumps(counts), sum(counts.values()))


if __name__ == "__main__":
    main()
