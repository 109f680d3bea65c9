"""Tools of the healthcare telemedicine domain: a multi-state virtual clinic.

Patients book video visits in clinicians' availability slots (after an optional triage),
clinicians check them in, complete the visit, prescribe (with allergy, interaction, lab
and controlled-substance rules), order labs, and the clinic bills the patient's coverage.
Times are clinic-local 'YYYY-MM-DDTHH:MM:SS' strings; dates 'YYYY-MM-DD'; money in dollars.

The agent acts for one identified person at a time: a patient (PAT-NNNNN, found with
identify_patient by full name and date of birth, or email) or a clinician (CLN-NNNNN, found
with identify_clinician by NPI number or email). Every call that acts for someone names them
(acting_patient_id, acting_clinician_id or acting_user_id) and refuses with permission_denied
what that person may not do; the rule texts below are the tools' `permission` lines.
"""

from datetime import date, datetime, timedelta
from math import ceil
from re import fullmatch

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
    require_permission,
    require_row,
)

SPECIALTIES = ("family_medicine", "internal_medicine", "pediatrics", "dermatology", "psychiatry", "cardiology",
               "endocrinology")
RED_FLAGS = ("chest_pain", "difficulty_breathing", "stroke_symptoms", "severe_bleeding", "suicidal_ideation",
             "loss_of_consciousness")
VISIT_TYPES = ("new_patient", "follow_up", "urgent_care")
PATIENT_STATUSES = ("active", "inactive")
CLINICIAN_STATUSES = ("active", "on_leave", "inactive")
TRIAGE_STATUSES = ("open", "scheduled", "referred_er", "closed")
ACUITIES = ("emergency", "urgent", "routine")
APPOINTMENT_STATUSES = ("scheduled", "checked_in", "completed", "cancelled", "no_show")
PRESCRIPTION_STATUSES = ("active", "completed", "discontinued", "expired")
LAB_STATUSES = ("ordered", "collected", "resulted", "cancelled")
LAB_CODES = ("CBC", "BMP", "CMP", "LIPID", "A1C", "TSH", "VITD", "PSA")
CLAIM_STATUSES = ("draft", "submitted", "approved", "denied", "appealed", "paid")
COVERAGE_STATUSES = ("active", "terminated")
SENDERS = ("patient", "clinician")
US_STATES = ("AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS",
             "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC",
             "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY")
URGENT_SEVERITY = 7
URGENT_WINDOW_HOURS = 48
LATE_CANCEL_HOURS = 24
LATE_CANCEL_FEE = 25.0
MAX_RESCHEDULES = 2
CHECK_IN_EARLY_MINUTES = 15
CHECK_IN_LATE_MINUTES = 30
ENCOUNTER_DAYS = 30
REQUIRED_LAB_DAYS = 365
EARLY_REFILL_FRACTION = 0.75
EXPIRY_DAYS_SCHEDULE_2 = 90
EXPIRY_DAYS_CONTROLLED = 180
EXPIRY_DAYS_DEFAULT = 365
CLAIM_FILING_DAYS = 90
APPEAL_DAYS = 60
MAX_PAGE = 100
STAT_SURCHARGE = 35.0
LAB_PRICES = (("CBC", 28.0), ("BMP", 32.0), ("CMP", 45.0), ("LIPID", 38.0), ("A1C", 40.0), ("TSH", 42.0),
              ("VITD", 55.0), ("PSA", 48.0))
LAB_PANELS = (
    ("CBC", (("WBC", "10^3/uL", 4.0, 11.0), ("HGB", "g/dL", 12.0, 17.5), ("PLT", "10^3/uL", 150.0, 400.0))),
    ("BMP", (("GLU", "mg/dL", 70.0, 99.0), ("NA", "mmol/L", 135.0, 145.0), ("K", "mmol/L", 3.5, 5.1),
             ("CREAT", "mg/dL", 0.6, 1.3))),
    ("CMP", (("GLU", "mg/dL", 70.0, 99.0), ("NA", "mmol/L", 135.0, 145.0), ("K", "mmol/L", 3.5, 5.1),
             ("CREAT", "mg/dL", 0.6, 1.3), ("ALT", "U/L", 7.0, 56.0), ("AST", "U/L", 10.0, 40.0))),
    ("LIPID", (("CHOL", "mg/dL", 0.0, 200.0), ("LDL", "mg/dL", 0.0, 100.0), ("HDL", "mg/dL", 40.0, 90.0),
               ("TRIG", "mg/dL", 0.0, 150.0))),
    ("A1C", (("HBA1C", "%", 4.0, 5.6),)),
    ("TSH", (("TSH", "mIU/L", 0.4, 4.0),)),
    ("VITD", (("VITD25", "ng/mL", 30.0, 100.0),)),
    ("PSA", (("PSA", "ng/mL", 0.0, 4.0),)),
)
SEVERITY_RANK = (("minor", 1), ("moderate", 2), ("major", 3))

# Permission rules: the same one-line text as each tool's `permission` in domain.json.
CARE_RULE = ("a patient acts only on their own record; a clinician only on patients who have a visit with them "
             "that was not cancelled")
CONTACT_RULE = "only the patient may change their own contact details"
ADD_COVERAGE_RULE = "only the patient may add a coverage to their own record"
TERMINATE_COVERAGE_RULE = "only the patient who holds a coverage may terminate it"
SLOT_RULE = "a clinician opens slots only in their own calendar"
TRIAGE_RULE = "a patient submits a triage only for themself"
TRIAGE_LIST_RULE = "a patient sees only their own triage assessments; clinicians see the triage queue"
BOOK_RULE = "a patient books visits only for themself"
APPOINTMENT_RULE = "only the appointment's patient or its clinician may see it"
APPOINTMENTS_RULE = "a patient sees only their own appointments; a clinician only the visits on their own calendar"
CANCEL_RULE = "only the appointment's patient or its clinician may cancel it"
RESCHEDULE_RULE = "only the appointment's patient or its clinician may reschedule it"
CHECK_IN_RULE = "only the appointment's patient or its clinician may check it in"
COMPLETE_RULE = "only the clinician who holds the visit may complete it"
PRESCRIBE_RULE = "only the clinician who holds the visit may prescribe in it"
REFILL_RULE = "only the prescription's patient or its prescribing clinician may refill it"
DISCONTINUE_RULE = "only the prescribing clinician may discontinue a prescription"
ORDER_LAB_RULE = "only the clinician who holds the visit may order labs in it"
COLLECTION_RULE = "only the ordering clinician may record a lab collection"
RESULT_RULE = "only the ordering clinician may record lab results"
CLAIMS_RULE = "a patient sees only their own claims; a clinician only claims for visits they held"
CREATE_CLAIM_RULE = "only the visit's patient or its clinician may bill it"
SUBMIT_CLAIM_RULE = "only the claim's patient or the clinician of the billed visit may submit it"
APPEAL_CLAIM_RULE = "only the claim's patient or the clinician of the billed visit may appeal it"
SEND_RULE = "a patient writes only in their own conversations, a clinician only in theirs"
MESSAGES_RULE = "a patient reads only their own conversations, a clinician only theirs"
READ_RULE = "only the recipient of a message may mark it read"


# ----------------------------------------------------------------------------- helpers
def _page(rows, limit, offset):
    page = paginate(rows, limit, offset, MAX_PAGE)
    following = offset + limit
    page["next_offset"] = following if following < len(rows) else None
    return page


def _date_range(date_from, date_to):
    start, end = optional_date(date_from, "date_from"), optional_date(date_to, "date_to")
    if start is not None and end is not None and start > end:
        raise InvalidArgumentError(f"date_from {date_from} is after date_to {date_to}")


# ----------------------------------------------------------------------------- who is acting
def _actor(ctx, acting_id, argument):
    """The acting principal as {"kind", "id"}; an id that names nobody is not_found naming the argument."""
    if acting_id.startswith("CLN-"):
        row = ctx.db.fetch_one("SELECT clinician_id FROM clinicians WHERE clinician_id = ?", (acting_id,))
        kind = "clinician"
    else:
        row = ctx.db.fetch_one("SELECT patient_id FROM patients WHERE patient_id = ?", (acting_id,))
        kind = "patient"
    if row is None:
        raise NotFoundError(f"{argument} {acting_id}: no such {kind}; identify them first (identify_{kind})")
    return {"kind": kind, "id": acting_id}


def _in_care(ctx, clinician_id, patient_id):
    row = ctx.db.fetch_one(
        "SELECT count(*) AS n FROM appointments WHERE clinician_id = ? AND patient_id = ? AND status <> 'cancelled'",
        (clinician_id, patient_id))
    return row["n"] > 0


def _may_act_on(ctx, actor, patient_id):
    """The care rule: the patient themself, or a clinician who has a visit with the patient that was not cancelled."""
    if actor["kind"] == "patient":
        return actor["id"] == patient_id
    return _in_care(ctx, actor["id"], patient_id)


def _party_of(actor, patient_id, clinician_id):
    """True when the actor is the given patient or the given clinician."""
    return actor["id"] == (patient_id if actor["kind"] == "patient" else clinician_id)


def _split(text):
    return [part for part in (text or "").split(",") if part]


def _age(date_of_birth, today):
    born, on = date.fromisoformat(date_of_birth), date.fromisoformat(today)
    return on.year - born.year - ((on.month, on.day) < (born.month, born.day))


def _moment(text):
    return datetime.fromisoformat(text)


def _clean(text):
    return (text or "").strip()


def _patient(ctx, patient_id):
    return require_row(
        ctx,
        "SELECT * FROM patients WHERE patient_id = ?",
        (patient_id,),
        f"no patient {patient_id} (ids look like PAT-00001; use find_patients)",
    )


def _clinician(ctx, clinician_id):
    return require_row(
        ctx,
        "SELECT * FROM clinicians WHERE clinician_id = ?",
        (clinician_id,),
        f"no clinician {clinician_id} (ids look like CLN-00001; use find_clinicians)",
    )


def _appointment(ctx, appointment_id):
    return require_row(
        ctx,
        "SELECT * FROM appointments WHERE appointment_id = ?",
        (appointment_id,),
        f"no appointment {appointment_id} (ids look like APT-00001; use find_appointments)",
    )


def _medication(ctx, medication_id):
    return require_row(
        ctx,
        "SELECT * FROM medications WHERE medication_id = ?",
        (medication_id,),
        f"no medication {medication_id} (ids look like MED-00001; use find_medications)",
    )


def _prescription(ctx, prescription_id):
    return require_row(
        ctx,
        "SELECT * FROM prescriptions WHERE prescription_id = ?",
        (prescription_id,),
        f"no prescription {prescription_id} (ids look like RX-00001; use find_prescriptions)",
    )


def _lab_order(ctx, lab_order_id):
    return require_row(
        ctx,
        "SELECT * FROM lab_orders WHERE lab_order_id = ?",
        (lab_order_id,),
        f"no lab order {lab_order_id} (ids look like LAB-00001; use find_lab_orders)",
    )


def _claim(ctx, claim_id):
    return require_row(
        ctx,
        "SELECT * FROM claims WHERE claim_id = ?",
        (claim_id,),
        f"no claim {claim_id} (ids look like CLM-00001; use find_claims)",
    )


def _coverage(ctx, coverage_id):
    return require_row(
        ctx,
        "SELECT * FROM coverages WHERE coverage_id = ?",
        (coverage_id,),
        f"no coverage {coverage_id} (ids look like COV-00001; use list_coverages)",
    )


def _coverage_on(ctx, patient_id, day):
    return ctx.db.fetch_one(
        "SELECT * FROM coverages WHERE patient_id = ? AND effective_from <= ? "
        "AND (effective_to IS NULL OR effective_to >= ?) ORDER BY effective_from DESC LIMIT 1",
        (patient_id, day, day),
    )


def _clinician_view(row, extra=None):
    view = dict(row)
    view["licensed_states"] = _split(row["licensed_states"])
    view["can_prescribe_controlled"] = bool(row["can_prescribe_controlled"])
    view.update(extra or {})
    return view


def _triage_view(row):
    view = dict(row)
    view["red_flags"] = _split(row["red_flags"])
    return view


def _is_current_encounter(appointment, today):
    if appointment["status"] == "checked_in":
        return True
    cutoff = (date.fromisoformat(today) - timedelta(days=ENCOUNTER_DAYS)).isoformat()
    return appointment["status"] == "completed" and appointment["scheduled_at"][:10] >= cutoff


def _next_refill_on(prescription):
    if prescription["status"] != "active" or prescription["refills_used"] >= prescription["refills_allowed"]:
        return None
    wait = ceil(prescription["days_supply"] * EARLY_REFILL_FRACTION)
    return (date.fromisoformat(prescription["last_filled_on"]) + timedelta(days=wait)).isoformat()


def _prescription_view(ctx, row):
    med = ctx.db.fetch_one("SELECT name, drug_class, controlled_schedule FROM medications WHERE medication_id = ?",
                           (row["medication_id"],))
    view = dict(row)
    view["medication_name"] = med["name"]
    view["drug_class"] = med["drug_class"]
    view["controlled_schedule"] = med["controlled_schedule"]
    view["refills_remaining"] = row["refills_allowed"] - row["refills_used"]
    view["next_refill_on"] = _next_refill_on(row)
    return view


def _interactions(ctx, patient_id, medication_id):
    return ctx.db.fetch_all(
        "SELECT i.interaction_id, p.prescription_id, p.medication_id AS interacting_medication_id, "
        "m.name AS interacting_medication_name, i.severity, i.description "
        "FROM prescriptions p JOIN drug_interactions i "
        "ON (i.medication_id = p.medication_id AND i.interacting_medication_id = ?) "
        "OR (i.interacting_medication_id = p.medication_id AND i.medication_id = ?) "
        "JOIN medications m ON m.medication_id = p.medication_id "
        "WHERE p.patient_id = ? AND p.status = 'active' ORDER BY p.prescription_id, i.interaction_id",
        (medication_id, medication_id, patient_id),
    )


def _recent_lab(ctx, patient_id, test_code, today):
    cutoff = (date.fromisoformat(today) - timedelta(days=REQUIRED_LAB_DAYS)).isoformat()
    return ctx.db.fetch_one(
        "SELECT lab_order_id, resulted_on FROM lab_orders WHERE patient_id = ? AND test_code = ? "
        "AND status = 'resulted' AND resulted_on >= ? ORDER BY resulted_on DESC, lab_order_id DESC LIMIT 1",
        (patient_id, test_code, cutoff),
    )


def _panel(test_code):
    for code, analytes in LAB_PANELS:
        if code == test_code:
            return analytes
    return None


def _lab_price(test_code):
    for code, price in LAB_PRICES:
        if code == test_code:
            return price
    return None


# ----------------------------------------------------------------------------- identification
def identify_patient(ctx, first_name: str | None = None, last_name: str | None = None,
                     date_of_birth: str | None = None, email: str | None = None) -> dict:
    if email is not None:
        rows = ctx.db.fetch_all(
            "SELECT patient_id, first_name, last_name, date_of_birth, email, state, status FROM patients "
            "WHERE lower(email) = lower(?) ORDER BY patient_id", (_clean(email),))
        asked = f"e-mail {email}"
    elif first_name is not None and last_name is not None:
        born = optional_date(date_of_birth, "date_of_birth")
        rows = ctx.db.fetch_all(
            "SELECT patient_id, first_name, last_name, date_of_birth, email, state, status FROM patients "
            "WHERE lower(first_name) = lower(?) AND lower(last_name) = lower(?) "
            "AND (? IS NULL OR date_of_birth = ?) ORDER BY patient_id",
            (_clean(first_name), _clean(last_name), born, born))
        asked = f"{_clean(first_name)} {_clean(last_name)}" + (f" born {born}" if born else "")
    else:
        raise InvalidArgumentError("give first_name and last_name (with date_of_birth), or email")
    if not rows:
        raise NotFoundError(f"no patient matches {asked}; check the spelling and the date of birth, or ask for the "
                            f"e-mail on file")
    if len(rows) > 1:
        raise InvalidArgumentError(f"{len(rows)} patients are named {asked}; ask for the date of birth")
    return rows[0]


def identify_clinician(ctx, npi: str | None = None, email: str | None = None, first_name: str | None = None,
                       last_name: str | None = None) -> dict:
    if npi is not None:
        rows = ctx.db.fetch_all(
            "SELECT clinician_id, first_name, last_name, npi, credential, specialty, email, status FROM clinicians "
            "WHERE npi = ? AND (? IS NULL OR lower(last_name) = lower(?)) ORDER BY clinician_id",
            (_clean(npi), last_name, _clean(last_name)))
        asked = f"NPI {npi}"
    elif email is not None:
        rows = ctx.db.fetch_all(
            "SELECT clinician_id, first_name, last_name, npi, credential, specialty, email, status FROM clinicians "
            "WHERE lower(email) = lower(?) ORDER BY clinician_id", (_clean(email),))
        asked = f"e-mail {email}"
    elif first_name is not None and last_name is not None:
        rows = ctx.db.fetch_all(
            "SELECT clinician_id, first_name, last_name, npi, credential, specialty, email, status FROM clinicians "
            "WHERE lower(first_name) = lower(?) AND lower(last_name) = lower(?) ORDER BY clinician_id",
            (_clean(first_name), _clean(last_name)))
        asked = f"{_clean(first_name)} {_clean(last_name)}"
    else:
        raise InvalidArgumentError("give npi (with last_name), email, or first_name and last_name")
    if not rows:
        raise NotFoundError(f"no clinician matches {asked}; ask for the 10-digit NPI or the clinic e-mail")
    if len(rows) > 1:
        raise InvalidArgumentError(f"{len(rows)} clinicians are named {asked}; ask for the NPI number or the clinic "
                                   f"e-mail")
    return rows[0]


# ----------------------------------------------------------------------------- patients
def find_patients(ctx, acting_clinician_id: str, name: str | None = None, date_of_birth: str | None = None,
                  state: str | None = None, email: str | None = None, status: str | None = None, limit: int = 20,
                  offset: int = 0) -> dict:
    _actor(ctx, acting_clinician_id, "acting_clinician_id")
    optional_date(date_of_birth, "date_of_birth")
    optional_choice(status, PATIENT_STATUSES, "status")
    state = state.upper() if state else None
    rows = ctx.db.fetch_all(
        "SELECT patient_id, first_name, last_name, date_of_birth, sex, city, state, email, phone, status "
        "FROM patients WHERE (? IS NULL OR (first_name || ' ' || last_name) LIKE '%' || ? || '%') "
        "AND (? IS NULL OR date_of_birth = ?) AND (? IS NULL OR state = ?) "
        "AND (? IS NULL OR lower(email) = lower(?)) AND (? IS NULL OR status = ?) "
        "ORDER BY last_name, first_name, patient_id",
        (name, name, date_of_birth, date_of_birth, state, state, email, email, status, status),
    )
    return _page(rows, limit, offset)


def get_patient(ctx, acting_user_id: str, patient_id: str) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    patient = _patient(ctx, patient_id)
    require_permission(_may_act_on(ctx, actor, patient_id), CARE_RULE)
    coverage = ctx.db.fetch_one(
        "SELECT coverage_id FROM coverages WHERE patient_id = ? AND status = 'active'", (patient_id,))
    view = dict(patient)
    view["allergies"] = _split(patient["allergies"])
    view["age"] = _age(patient["date_of_birth"], ctx.today)
    view["coverage_id"] = coverage["coverage_id"] if coverage else None
    return view


def update_patient_contact(ctx, acting_patient_id: str, patient_id: str, email: str | None = None, phone: str | None = None,
                           address_line: str | None = None, city: str | None = None, state: str | None = None,
                           postal_code: str | None = None) -> dict:
    actor = _actor(ctx, acting_patient_id, "acting_patient_id")
    patient = _patient(ctx, patient_id)
    require_permission(actor["id"] == patient_id, CONTACT_RULE)
    given = {"email": email, "phone": phone, "address_line": address_line, "city": city,
             "state": state.upper() if state else state, "postal_code": postal_code}
    if all(value is None for value in given.values()):
        raise InvalidArgumentError("give at least one of email, phone, address_line, city, state, postal_code")
    if (email is not None and not fullmatch(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}", email)) \
            or (phone is not None and not fullmatch(r"\+1-\d{3}-\d{3}-\d{4}", phone)) \
            or (given["state"] is not None and given["state"] not in US_STATES) \
            or (postal_code is not None and not fullmatch(r"\d{5}", postal_code)) \
            or (address_line is not None and not address_line.strip()) or (city is not None and not city.strip()):
        raise InvalidArgumentError("malformed field: email like name@host.tld, phone +1-NNN-NNN-NNNN, state a 2-letter "
                                   "US code, postal_code 5 digits, address_line and city non-empty")
    if patient["status"] != "active":
        raise NotPermittedError(f"patient {patient_id} is inactive; contact details of inactive records are frozen")
    new_state = given["state"]
    if new_state is not None and new_state != patient["state"]:
        blocking = ctx.db.fetch_all(
            "SELECT a.appointment_id FROM appointments a JOIN clinicians c ON c.clinician_id = a.clinician_id "
            "WHERE a.patient_id = ? AND a.status IN ('scheduled', 'checked_in') "
            "AND (',' || c.licensed_states || ',') NOT LIKE '%,' || ? || ',%' ORDER BY a.appointment_id",
            (patient_id, new_state),
        )
        if blocking:
            ids = ", ".join(r["appointment_id"] for r in blocking)
            raise ConflictError(f"moving to {new_state} would leave appointments {ids} with clinicians not licensed "
                                f"there; cancel or reschedule them first")
    changed = [field for field, value in given.items() if value is not None and value != patient[field]]
    ctx.db.execute(
        "UPDATE patients SET email = coalesce(?, email), phone = coalesce(?, phone), "
        "address_line = coalesce(?, address_line), city = coalesce(?, city), state = coalesce(?, state), "
        "postal_code = coalesce(?, postal_code) WHERE patient_id = ?",
        (email, phone, address_line, city, new_state, postal_code, patient_id),
    )
    row = _patient(ctx, patient_id)
    return {"patient_id": patient_id, "email": row["email"], "phone": row["phone"],
            "address_line": row["address_line"], "city": row["city"], "state": row["state"],
            "postal_code": row["postal_code"], "changed_fields": changed}


def record_allergy(ctx, acting_user_id: str, patient_id: str, drug_class: str) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    patient = _patient(ctx, patient_id)
    require_permission(_may_act_on(ctx, actor, patient_id), CARE_RULE)
    drug_class = _clean(drug_class).lower()
    known = ctx.db.fetch_one("SELECT count(*) AS n FROM medications WHERE drug_class = ?", (drug_class,))
    if known["n"] == 0:
        raise InvalidArgumentError(f"unknown drug class {drug_class!r}; use a drug_class value from find_medications")
    allergies = _split(patient["allergies"])
    if drug_class in allergies:
        raise ConflictError(f"patient {patient_id} already has a recorded {drug_class} allergy")
    allergies = sorted(allergies + [drug_class])
    ctx.db.execute("UPDATE patients SET allergies = ? WHERE patient_id = ?", (",".join(allergies), patient_id))
    affected = ctx.db.fetch_all(
        "SELECT p.prescription_id, p.medication_id, m.name AS medication_name FROM prescriptions p "
        "JOIN medications m ON m.medication_id = p.medication_id "
        "WHERE p.patient_id = ? AND p.status = 'active' AND m.drug_class = ? ORDER BY p.prescription_id",
        (patient_id, drug_class),
    )
    return {"patient_id": patient_id, "allergies": allergies, "active_prescriptions_in_class": affected}


# ----------------------------------------------------------------------------- coverage
def list_coverages(ctx, acting_user_id: str, patient_id: str, status: str | None = None) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    _patient(ctx, patient_id)
    require_permission(_may_act_on(ctx, actor, patient_id), CARE_RULE)
    optional_choice(status, COVERAGE_STATUSES, "status")
    rows = ctx.db.fetch_all(
        "SELECT * FROM coverages WHERE patient_id = ? AND (? IS NULL OR status = ?) "
        "ORDER BY effective_from DESC, coverage_id DESC",
        (patient_id, status, status),
    )
    return {"items": rows}


def add_coverage(ctx, acting_patient_id: str, patient_id: str, payer_name: str, plan_name: str, member_number: str,
                 telehealth_copay: float, effective_from: str) -> dict:
    actor = _actor(ctx, acting_patient_id, "acting_patient_id")
    _patient(ctx, patient_id)
    require_permission(actor["id"] == patient_id, ADD_COVERAGE_RULE)
    start = require_date(effective_from, "effective_from")
    if not _clean(payer_name) or not _clean(plan_name) or not fullmatch(r"[A-Z0-9]{6,20}", member_number or "") \
            or telehealth_copay < 0 or telehealth_copay > 500:
        raise InvalidArgumentError("payer_name and plan_name must be non-empty, member_number 6-20 upper-case letters "
                                   "or digits, telehealth_copay between 0 and 500 dollars")
    active = ctx.db.fetch_one("SELECT coverage_id FROM coverages WHERE patient_id = ? AND status = 'active'",
                              (patient_id,))
    if active is not None:
        raise ConflictError(f"patient {patient_id} already has active coverage {active['coverage_id']}; "
                            f"terminate it first (terminate_coverage)")
    overlap = ctx.db.fetch_one(
        "SELECT coverage_id, effective_to FROM coverages WHERE patient_id = ? AND effective_to >= ? "
        "ORDER BY effective_to DESC LIMIT 1", (patient_id, start.isoformat()))
    if overlap is not None:
        raise ConflictError(f"effective_from {effective_from} overlaps coverage {overlap['coverage_id']}, which ended "
                            f"{overlap['effective_to']}; start the new coverage after that day")
    coverage_id = ctx.new_id("COV")
    ctx.db.execute(
        "INSERT INTO coverages (coverage_id, patient_id, payer_name, plan_name, member_number, telehealth_copay, "
        "status, effective_from, effective_to) VALUES (?, ?, ?, ?, ?, ?, 'active', ?, NULL)",
        (coverage_id, patient_id, _clean(payer_name), _clean(plan_name), member_number,
         round(float(telehealth_copay), 2), start.isoformat()),
    )
    return _coverage(ctx, coverage_id)


def terminate_coverage(ctx, acting_patient_id: str, coverage_id: str, effective_to: str) -> dict:
    actor = _actor(ctx, acting_patient_id, "acting_patient_id")
    coverage = _coverage(ctx, coverage_id)
    require_permission(actor["id"] == coverage["patient_id"], TERMINATE_COVERAGE_RULE)
    end = require_date(effective_to, "effective_to")
    if coverage["status"] != "active":
        raise ConflictError(f"coverage {coverage_id} is already terminated (ended {coverage['effective_to']})")
    if end.isoformat() < coverage["effective_from"]:
        raise InvalidArgumentError(f"effective_to {effective_to} is before effective_from {coverage['effective_from']}")
    pending = ctx.db.fetch_all(
        "SELECT c.claim_id FROM claims c JOIN appointments a ON a.appointment_id = c.appointment_id "
        "WHERE c.coverage_id = ? AND c.status IN ('draft', 'submitted', 'appealed') "
        "AND substr(a.scheduled_at, 1, 10) > ? ORDER BY c.claim_id",
        (coverage_id, end.isoformat()),
    )
    if pending:
        ids = ", ".join(r["claim_id"] for r in pending)
        raise ConflictError(f"claims {ids} bill this coverage for visits after {effective_to} and are still pending")
    ctx.db.execute("UPDATE coverages SET status = 'terminated', effective_to = ? WHERE coverage_id = ?",
                   (end.isoformat(), coverage_id))
    return _coverage(ctx, coverage_id)


# ----------------------------------------------------------------------------- clinicians and slots
def find_clinicians(ctx, specialty: str | None = None, state: str | None = None, name: str | None = None,
                    status: str | None = None, limit: int = 20, offset: int = 0) -> dict:
    optional_choice(specialty, SPECIALTIES, "specialty")
    optional_choice(status, CLINICIAN_STATUSES, "status")
    state = state.upper() if state else None
    rows = ctx.db.fetch_all(
        "SELECT * FROM clinicians WHERE (? IS NULL OR specialty = ?) "
        "AND (? IS NULL OR (',' || licensed_states || ',') LIKE '%,' || ? || ',%') "
        "AND (? IS NULL OR (first_name || ' ' || last_name) LIKE '%' || ? || '%') AND (? IS NULL OR status = ?) "
        "ORDER BY last_name, first_name, clinician_id",
        (specialty, specialty, state, state, name, name, status, status),
    )
    return _page([_clinician_view(r) for r in rows], limit, offset)


def get_clinician(ctx, clinician_id: str) -> dict:
    clinician = _clinician(ctx, clinician_id)
    count = ctx.db.fetch_one(
        "SELECT count(*) AS n FROM availability_slots WHERE clinician_id = ? AND status = 'open' AND starts_at > ?",
        (clinician_id, ctx.now))
    return _clinician_view(clinician, {"open_slot_count": count["n"]})


def find_open_slots(ctx, clinician_id: str | None = None, specialty: str | None = None, state: str | None = None,
                    date_from: str | None = None, date_to: str | None = None, limit: int = 20, offset: int = 0) -> dict:
    _date_range(date_from, date_to)
    optional_choice(specialty, SPECIALTIES, "specialty")
    state = state.upper() if state else None
    rows = ctx.db.fetch_all(
        "SELECT s.slot_id, s.clinician_id, c.first_name || ' ' || c.last_name AS clinician_name, c.specialty, "
        "s.starts_at, s.duration_minutes, c.visit_fee FROM availability_slots s "
        "JOIN clinicians c ON c.clinician_id = s.clinician_id "
        "WHERE s.status = 'open' AND s.starts_at > ? AND c.status = 'active' "
        "AND (? IS NULL OR s.clinician_id = ?) AND (? IS NULL OR c.specialty = ?) "
        "AND (? IS NULL OR (',' || c.licensed_states || ',') LIKE '%,' || ? || ',%') "
        "AND (? IS NULL OR substr(s.starts_at, 1, 10) >= ?) AND (? IS NULL OR substr(s.starts_at, 1, 10) <= ?) "
        "ORDER BY s.starts_at, s.slot_id",
        (ctx.now, clinician_id, clinician_id, specialty, specialty, state, state, date_from, date_from,
         date_to, date_to),
    )
    return _page(rows, limit, offset)


def add_availability_slot(ctx, acting_clinician_id: str, clinician_id: str, starts_at: str,
                          duration_minutes: int) -> dict:
    actor = _actor(ctx, acting_clinician_id, "acting_clinician_id")
    clinician = _clinician(ctx, clinician_id)
    require_permission(actor["id"] == clinician_id, SLOT_RULE)
    if not fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00", starts_at or ""):
        raise InvalidArgumentError("starts_at must look like 2026-05-20T14:30:00")
    try:
        start = _moment(starts_at)
    except ValueError:
        raise InvalidArgumentError(f"starts_at {starts_at!r} is not a real time") from None
    end = start + timedelta(minutes=duration_minutes)
    if duration_minutes not in (15, 20, 30, 45, 60) or start.minute % 15 != 0 or start.hour < 7 \
            or (end.hour, end.minute) > (20, 0) or end.date() != start.date():
        raise InvalidArgumentError("duration_minutes must be 15, 20, 30, 45 or 60, and the slot must start on a "
                                   "quarter hour and lie within clinic hours 07:00-20:00")
    if starts_at <= ctx.now:
        raise InvalidArgumentError(f"starts_at {starts_at} is not in the future (now is {ctx.now})")
    if clinician["status"] != "active":
        raise NotPermittedError(f"clinician {clinician_id} is {clinician['status']} and cannot open new slots")
    same_day = ctx.db.fetch_all(
        "SELECT slot_id, starts_at, duration_minutes FROM availability_slots "
        "WHERE clinician_id = ? AND substr(starts_at, 1, 10) = ? ORDER BY starts_at",
        (clinician_id, starts_at[:10]),
    )
    for other in same_day:
        other_start = _moment(other["starts_at"])
        other_end = other_start + timedelta(minutes=other["duration_minutes"])
        if start < other_end and other_start < end:
            raise ConflictError(f"overlaps slot {other['slot_id']} at {other['starts_at']} "
                                f"({other['duration_minutes']} min)")
    slot_id = ctx.new_id("SLT")
    ctx.db.execute(
        "INSERT INTO availability_slots (slot_id, clinician_id, starts_at, duration_minutes, status) "
        "VALUES (?, ?, ?, ?, 'open')",
        (slot_id, clinician_id, starts_at, duration_minutes),
    )
    return {"slot_id": slot_id, "clinician_id": clinician_id, "starts_at": starts_at,
            "duration_minutes": duration_minutes, "status": "open"}


# ----------------------------------------------------------------------------- triage
def submit_triage(ctx, acting_patient_id: str, patient_id: str, symptoms: str, severity: int,
                  recommended_specialty: str, red_flags: list | None = None) -> dict:
    actor = _actor(ctx, acting_patient_id, "acting_patient_id")
    patient = _patient(ctx, patient_id)
    require_permission(actor["id"] == patient_id, TRIAGE_RULE)
    flags = sorted(set(red_flags or []))
    require_choice(recommended_specialty, SPECIALTIES, "recommended_specialty")
    for flag in flags:
        require_choice(flag, RED_FLAGS, "red_flags")
    if not _clean(symptoms) or severity < 1 or severity > 10:
        raise InvalidArgumentError("symptoms must be non-empty and severity between 1 and 10")
    if patient["status"] != "active":
        raise NotPermittedError(f"patient {patient_id} is inactive")
    duplicate = ctx.db.fetch_one(
        "SELECT triage_id FROM triage_assessments WHERE patient_id = ? AND recommended_specialty = ? "
        "AND status = 'open'", (patient_id, recommended_specialty))
    if duplicate is not None:
        raise ConflictError(f"patient {patient_id} already has open triage {duplicate['triage_id']} for "
                            f"{recommended_specialty}; book it instead of submitting another")
    if flags:
        acuity, status = "emergency", "referred_er"
        next_step = "Emergency: tell the patient to call 911 or go to the nearest emergency department now."
    elif severity >= URGENT_SEVERITY:
        acuity, status = "urgent", "open"
        next_step = "Urgent: book a video visit that starts within 48 hours, with this triage_id."
    else:
        acuity, status = "routine", "open"
        next_step = "Routine: book a video visit with this triage_id."
    triage_id = ctx.new_id("TRI")
    ctx.db.execute(
        "INSERT INTO triage_assessments (triage_id, patient_id, submitted_at, symptoms, severity, red_flags, acuity, "
        "recommended_specialty, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (triage_id, patient_id, ctx.now, _clean(symptoms), severity, ",".join(flags), acuity, recommended_specialty,
         status),
    )
    row = ctx.db.fetch_one("SELECT * FROM triage_assessments WHERE triage_id = ?", (triage_id,))
    view = _triage_view(row)
    view["next_step"] = next_step
    return view


def find_triage_assessments(ctx, acting_user_id: str, patient_id: str | None = None, status: str | None = None,
                            acuity: str | None = None, recommended_specialty: str | None = None, limit: int = 20,
                            offset: int = 0) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    if actor["kind"] == "patient":
        require_permission(patient_id is None or patient_id == actor["id"], TRIAGE_LIST_RULE)
        patient_id = actor["id"]
    optional_choice(status, TRIAGE_STATUSES, "status")
    optional_choice(acuity, ACUITIES, "acuity")
    optional_choice(recommended_specialty, SPECIALTIES, "recommended_specialty")
    rows = ctx.db.fetch_all(
        "SELECT * FROM triage_assessments WHERE (? IS NULL OR patient_id = ?) AND (? IS NULL OR status = ?) "
        "AND (? IS NULL OR acuity = ?) AND (? IS NULL OR recommended_specialty = ?) "
        "ORDER BY submitted_at DESC, triage_id DESC",
        (patient_id, patient_id, status, status, acuity, acuity, recommended_specialty, recommended_specialty),
    )
    return _page([_triage_view(r) for r in rows], limit, offset)


# ----------------------------------------------------------------------------- appointments
def book_appointment(ctx, acting_patient_id: str, patient_id: str, slot_id: str, visit_type: str, reason: str,
                     triage_id: str | None = None) -> dict:
    actor = _actor(ctx, acting_patient_id, "acting_patient_id")
    patient = _patient(ctx, patient_id)
    require_permission(actor["id"] == patient_id, BOOK_RULE)
    slot = require_row(
        ctx,
        "SELECT * FROM availability_slots WHERE slot_id = ?",
        (slot_id,),
        f"no slot {slot_id} (ids look like SLT-00001; use find_open_slots)",
    )
    triage = None
    if triage_id is not None:
        triage = require_row(
            ctx,
            "SELECT * FROM triage_assessments WHERE triage_id = ?",
            (triage_id,),
            f"no triage assessment {triage_id}",
        )
    require_choice(visit_type, VISIT_TYPES, "visit_type")
    if not _clean(reason):
        raise InvalidArgumentError("reason must be non-empty")
    if patient["status"] != "active":
        raise NotPermittedError(f"patient {patient_id} is inactive and cannot book")
    if slot["status"] != "open" or slot["starts_at"] <= ctx.now:
        raise ConflictError(f"slot {slot_id} is {slot['status']} at {slot['starts_at']}; pick an open future slot "
                            f"(find_open_slots)")
    holder = ctx.db.fetch_one("SELECT appointment_id FROM appointments WHERE slot_id = ? "
                              "AND status IN ('scheduled', 'checked_in', 'completed', 'no_show')", (slot_id,))
    if holder is not None:
        raise ConflictError(f"slot {slot_id} is held by appointment {holder['appointment_id']}; pick an open future "
                            f"slot (find_open_slots)")
    clinician = _clinician(ctx, slot["clinician_id"])
    if clinician["status"] != "active":
        raise NotPermittedError(f"clinician {clinician['clinician_id']} is {clinician['status']}")
    if patient["state"] not in _split(clinician["licensed_states"]):
        raise NotPermittedError(f"clinician {clinician['clinician_id']} is not licensed in {patient['state']}, where "
                                f"patient {patient_id} lives")
    age = _age(patient["date_of_birth"], slot["starts_at"][:10])
    if (clinician["specialty"] == "pediatrics" and age >= 18) or (
            clinician["specialty"] not in ("pediatrics", "family_medicine") and age < 18):
        raise NotPermittedError(f"a {age}-year-old cannot see {clinician['specialty']}: pediatrics is for patients "
                                f"under 18, family medicine for all ages, other specialties for 18 and over")
    clash = ctx.db.fetch_one(
        "SELECT appointment_id FROM appointments WHERE patient_id = ? AND scheduled_at = ? "
        "AND status IN ('scheduled', 'checked_in')", (patient_id, slot["starts_at"]))
    if clash is not None:
        raise ConflictError(f"patient {patient_id} already has appointment {clash['appointment_id']} at "
                            f"{slot['starts_at']}")
    if visit_type == "follow_up":
        prior = ctx.db.fetch_one(
            "SELECT count(*) AS n FROM appointments WHERE patient_id = ? AND clinician_id = ? AND status = 'completed'",
            (patient_id, clinician["clinician_id"]))
        if prior["n"] == 0:
            raise InvalidArgumentError("visit_type follow_up needs an earlier completed visit with the same clinician; "
                                       "use new_patient")
    if triage is not None:
        if triage["patient_id"] != patient_id:
            raise InvalidArgumentError(f"triage {triage_id} belongs to another patient")
        if triage["acuity"] == "emergency":
            raise NotPermittedError(f"triage {triage_id} is an emergency: refer the patient to emergency care, do "
                                    f"not book a video visit")
        if triage["status"] != "open":
            raise ConflictError(f"triage {triage_id} is {triage['status']}, not open")
        if triage["recommended_specialty"] != clinician["specialty"]:
            raise InvalidArgumentError(f"triage {triage_id} recommends {triage['recommended_specialty']}, but the slot "
                                       f"is with a {clinician['specialty']} clinician")
        window_end = _moment(ctx.now) + timedelta(hours=URGENT_WINDOW_HOURS)
        if triage["acuity"] == "urgent" and _moment(slot["starts_at"]) > window_end:
            raise ConflictError(f"triage {triage_id} is urgent: the visit must start by {window_end.isoformat()}")
    if visit_type == "urgent_care" and (triage is None or triage["acuity"] != "urgent"):
        raise InvalidArgumentError("visit_type urgent_care needs a triage_id whose acuity is urgent")
    appointment_id = ctx.new_id("APT")
    ctx.db.execute(
        "INSERT INTO appointments (appointment_id, patient_id, clinician_id, slot_id, triage_id, scheduled_at, "
        "visit_type, reason, status, fee, cancellation_fee, reschedule_count, booked_at, checked_in_at, "
        "diagnosis_code, visit_notes, cancel_reason) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'scheduled', ?, 0.0, 0, ?, NULL, NULL, NULL, NULL)",
        (appointment_id, patient_id, clinician["clinician_id"], slot_id, triage_id, slot["starts_at"], visit_type,
         _clean(reason), clinician["visit_fee"], ctx.now),
    )
    ctx.db.execute("UPDATE availability_slots SET status = 'booked' WHERE slot_id = ?", (slot_id,))
    if triage is not None:
        ctx.db.execute("UPDATE triage_assessments SET status = 'scheduled' WHERE triage_id = ?", (triage_id,))
    coverage = _coverage_on(ctx, patient_id, slot["starts_at"][:10])
    cost = min(coverage["telehealth_copay"], clinician["visit_fee"]) if coverage else clinician["visit_fee"]
    return {"appointment_id": appointment_id, "patient_id": patient_id, "clinician_id": clinician["clinician_id"],
            "slot_id": slot_id, "triage_id": triage_id, "scheduled_at": slot["starts_at"], "visit_type": visit_type,
            "status": "scheduled", "fee": clinician["visit_fee"],
            "coverage_id": coverage["coverage_id"] if coverage else None, "estimated_patient_cost": cost}


def get_appointment(ctx, acting_user_id: str, appointment_id: str) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    appointment = _appointment(ctx, appointment_id)
    require_permission(_party_of(actor, appointment["patient_id"], appointment["clinician_id"]), APPOINTMENT_RULE)
    clinician = _clinician(ctx, appointment["clinician_id"])
    view = dict(appointment)
    view["clinician_name"] = f"{clinician['first_name']} {clinician['last_name']}"
    view["specialty"] = clinician["specialty"]
    return view


def find_appointments(ctx, acting_user_id: str, patient_id: str | None = None, clinician_id: str | None = None,
                      status: str | None = None, date_from: str | None = None, date_to: str | None = None,
                      limit: int = 20, offset: int = 0) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    if actor["kind"] == "patient":
        require_permission(patient_id is None or patient_id == actor["id"], APPOINTMENTS_RULE)
        patient_id = actor["id"]
    else:
        require_permission(clinician_id is None or clinician_id == actor["id"], APPOINTMENTS_RULE)
        clinician_id = actor["id"]
    _date_range(date_from, date_to)
    optional_choice(status, APPOINTMENT_STATUSES, "status")
    rows = ctx.db.fetch_all(
        "SELECT a.appointment_id, a.patient_id, a.clinician_id, c.first_name || ' ' || c.last_name AS clinician_name, "
        "c.specialty, a.slot_id, a.triage_id, a.scheduled_at, a.visit_type, a.reason, a.status, a.fee "
        "FROM appointments a JOIN clinicians c ON c.clinician_id = a.clinician_id "
        "WHERE (? IS NULL OR a.patient_id = ?) AND (? IS NULL OR a.clinician_id = ?) AND (? IS NULL OR a.status = ?) "
        "AND (? IS NULL OR substr(a.scheduled_at, 1, 10) >= ?) AND (? IS NULL OR substr(a.scheduled_at, 1, 10) <= ?) "
        "ORDER BY a.scheduled_at, a.appointment_id",
        (patient_id, patient_id, clinician_id, clinician_id, status, status, date_from, date_from, date_to, date_to),
    )
    return _page(rows, limit, offset)


def cancel_appointment(ctx, acting_user_id: str, appointment_id: str, reason: str) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    appointment = _appointment(ctx, appointment_id)
    require_permission(_party_of(actor, appointment["patient_id"], appointment["clinician_id"]), CANCEL_RULE)
    if not _clean(reason):
        raise InvalidArgumentError("reason must be non-empty")
    if appointment["status"] != "scheduled":
        raise ConflictError(f"appointment {appointment_id} is {appointment['status']}; only scheduled visits can be "
                            f"cancelled")
    start, now = _moment(appointment["scheduled_at"]), _moment(ctx.now)
    if start <= now:
        raise ConflictError(f"appointment {appointment_id} started at {appointment['scheduled_at']}; it can no longer "
                            f"be cancelled")
    fee = LATE_CANCEL_FEE if start - now < timedelta(hours=LATE_CANCEL_HOURS) else 0.0
    ctx.db.execute(
        "UPDATE appointments SET status = 'cancelled', cancel_reason = ?, cancellation_fee = ? "
        "WHERE appointment_id = ?", (_clean(reason), fee, appointment_id))
    ctx.db.execute("UPDATE availability_slots SET status = 'open' WHERE slot_id = ?", (appointment["slot_id"],))
    if appointment["triage_id"] is not None:
        ctx.db.execute("UPDATE triage_assessments SET status = 'open' WHERE triage_id = ? AND status = 'scheduled'",
                       (appointment["triage_id"],))
    return {"appointment_id": appointment_id, "status": "cancelled", "cancellation_fee": fee,
            "slot_id": appointment["slot_id"], "triage_id": appointment["triage_id"]}


def reschedule_appointment(ctx, acting_user_id: str, appointment_id: str, new_slot_id: str) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    appointment = _appointment(ctx, appointment_id)
    require_permission(_party_of(actor, appointment["patient_id"], appointment["clinician_id"]), RESCHEDULE_RULE)
    slot = require_row(
        ctx, "SELECT * FROM availability_slots WHERE slot_id = ?", (new_slot_id,), f"no slot {new_slot_id}"
    )
    if appointment["status"] != "scheduled":
        raise ConflictError(f"appointment {appointment_id} is {appointment['status']}; only scheduled visits can be "
                            f"rescheduled")
    if appointment["reschedule_count"] >= MAX_RESCHEDULES:
        raise NotPermittedError(f"appointment {appointment_id} was already rescheduled {MAX_RESCHEDULES} times; "
                                f"cancel it and book a new one")
    if slot["clinician_id"] != appointment["clinician_id"]:
        raise InvalidArgumentError(f"slot {new_slot_id} belongs to {slot['clinician_id']}, not to the appointment's "
                                   f"clinician {appointment['clinician_id']}")
    if slot["status"] != "open" or slot["starts_at"] <= ctx.now:
        raise ConflictError(f"slot {new_slot_id} is {slot['status']} at {slot['starts_at']}; pick an open future slot")
    clash = ctx.db.fetch_one(
        "SELECT appointment_id FROM appointments WHERE patient_id = ? AND scheduled_at = ? "
        "AND status IN ('scheduled', 'checked_in') AND appointment_id <> ?",
        (appointment["patient_id"], slot["starts_at"], appointment_id))
    if clash is not None:
        raise ConflictError(f"the patient already has appointment {clash['appointment_id']} at {slot['starts_at']}")
    count = appointment["reschedule_count"] + 1
    ctx.db.execute(
        "UPDATE appointments SET slot_id = ?, scheduled_at = ?, reschedule_count = ? WHERE appointment_id = ?",
        (new_slot_id, slot["starts_at"], count, appointment_id))
    ctx.db.execute("UPDATE availability_slots SET status = 'open' WHERE slot_id = ?", (appointment["slot_id"],))
    ctx.db.execute("UPDATE availability_slots SET status = 'booked' WHERE slot_id = ?", (new_slot_id,))
    return {"appointment_id": appointment_id, "slot_id": new_slot_id, "previous_slot_id": appointment["slot_id"],
            "scheduled_at": slot["starts_at"], "reschedule_count": count}


def check_in_appointment(ctx, acting_user_id: str, appointment_id: str) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    appointment = _appointment(ctx, appointment_id)
    require_permission(_party_of(actor, appointment["patient_id"], appointment["clinician_id"]), CHECK_IN_RULE)
    if appointment["status"] != "scheduled":
        raise ConflictError(f"appointment {appointment_id} is {appointment['status']}, not scheduled")
    start, now = _moment(appointment["scheduled_at"]), _moment(ctx.now)
    if now < start - timedelta(minutes=CHECK_IN_EARLY_MINUTES) or now > start + timedelta(minutes=CHECK_IN_LATE_MINUTES):
        raise ConflictError(f"check-in for the visit at {appointment['scheduled_at']} is open from 15 minutes before "
                            f"to 30 minutes after the start; now is {ctx.now}")
    ctx.db.execute("UPDATE appointments SET status = 'checked_in', checked_in_at = ? WHERE appointment_id = ?",
                   (ctx.now, appointment_id))
    return {"appointment_id": appointment_id, "status": "checked_in", "checked_in_at": ctx.now,
            "patient_id": appointment["patient_id"], "clinician_id": appointment["clinician_id"]}


def complete_appointment(ctx, acting_clinician_id: str, appointment_id: str, diagnosis_code: str,
                         visit_notes: str) -> dict:
    actor = _actor(ctx, acting_clinician_id, "acting_clinician_id")
    appointment = _appointment(ctx, appointment_id)
    require_permission(actor["id"] == appointment["clinician_id"], COMPLETE_RULE)
    code = _clean(diagnosis_code).upper()
    if not fullmatch(r"[A-Z][0-9][0-9A-Z](\.[0-9A-Z]{1,4})?", code) or not _clean(visit_notes):
        raise InvalidArgumentError("diagnosis_code must be an ICD-10 code like J06.9 or M54.50, and visit_notes "
                                   "non-empty")
    if appointment["status"] != "checked_in":
        raise ConflictError(f"appointment {appointment_id} is {appointment['status']}; check the patient in first "
                            f"(check_in_appointment)")
    ctx.db.execute(
        "UPDATE appointments SET status = 'completed', diagnosis_code = ?, visit_notes = ? WHERE appointment_id = ?",
        (code, _clean(visit_notes), appointment_id))
    if appointment["triage_id"] is not None:
        ctx.db.execute("UPDATE triage_assessments SET status = 'closed' WHERE triage_id = ?",
                       (appointment["triage_id"],))
    coverage = _coverage_on(ctx, appointment["patient_id"], appointment["scheduled_at"][:10])
    return {"appointment_id": appointment_id, "status": "completed", "patient_id": appointment["patient_id"],
            "clinician_id": appointment["clinician_id"], "triage_id": appointment["triage_id"],
            "diagnosis_code": code, "coverage_id": coverage["coverage_id"] if coverage else None}


# ----------------------------------------------------------------------------- medications and prescriptions
def find_medications(ctx, text: str | None = None, drug_class: str | None = None, controlled: bool | None = None,
                     limit: int = 20, offset: int = 0) -> dict:
    flag = None if controlled is None else (1 if controlled else 0)
    rows = ctx.db.fetch_all(
        "SELECT * FROM medications WHERE (? IS NULL OR name LIKE '%' || ? || '%' OR generic_name LIKE '%' || ? || '%') "
        "AND (? IS NULL OR drug_class = ?) AND (? IS NULL OR (controlled_schedule > 0) = ?) "
        "ORDER BY name, medication_id",
        (text, text, text, drug_class, drug_class, flag, flag),
    )
    return _page(rows, limit, offset)


def check_drug_interactions(ctx, acting_user_id: str, patient_id: str, medication_id: str) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    patient = _patient(ctx, patient_id)
    require_permission(_may_act_on(ctx, actor, patient_id), CARE_RULE)
    med = _medication(ctx, medication_id)
    found = _interactions(ctx, patient_id, medication_id)
    ranks = dict(SEVERITY_RANK)
    highest = None
    for item in found:
        if highest is None or ranks[item["severity"]] > ranks[highest]:
            highest = item["severity"]
    duplicate = ctx.db.fetch_one(
        "SELECT prescription_id FROM prescriptions WHERE patient_id = ? AND medication_id = ? AND status = 'active'",
        (patient_id, medication_id))
    lab = _recent_lab(ctx, patient_id, med["required_lab_test"], ctx.today) if med["required_lab_test"] else None
    return {"patient_id": patient_id, "medication_id": medication_id, "medication_name": med["name"],
            "allergy_conflict": med["drug_class"] in _split(patient["allergies"]),
            "duplicate_prescription_id": duplicate["prescription_id"] if duplicate else None,
            "interactions": found, "highest_severity": highest, "required_lab_test": med["required_lab_test"],
            "required_lab_order_id": lab["lab_order_id"] if lab else None}


def prescribe_medication(ctx, acting_clinician_id: str, appointment_id: str, medication_id: str,
                         dosage_instructions: str, quantity: int, days_supply: int, refills: int,
                         acknowledge_interactions: bool = False) -> dict:
    actor = _actor(ctx, acting_clinician_id, "acting_clinician_id")
    appointment = _appointment(ctx, appointment_id)
    require_permission(actor["id"] == appointment["clinician_id"], PRESCRIBE_RULE)
    med = _medication(ctx, medication_id)
    if not _clean(dosage_instructions) or quantity < 1 or quantity > 360 or days_supply < 1 or days_supply > 90 \
            or refills < 0:
        raise InvalidArgumentError("dosage_instructions must be non-empty, quantity 1-360, days_supply 1-90 and "
                                   "refills 0 or more")
    if refills > med["max_refills"]:
        raise InvalidArgumentError(f"{med['name']} allows at most {med['max_refills']} refills")
    if not _is_current_encounter(appointment, ctx.today):
        raise NotPermittedError(f"appointment {appointment_id} is {appointment['status']} on "
                                f"{appointment['scheduled_at'][:10]}: prescribing needs a checked-in visit or one "
                                f"completed within the last 30 days")
    patient_id = appointment["patient_id"]
    patient = _patient(ctx, patient_id)
    if patient["status"] != "active":
        raise NotPermittedError(f"patient {patient_id} is inactive")
    clinician = _clinician(ctx, appointment["clinician_id"])
    if med["controlled_schedule"] > 0 and not clinician["can_prescribe_controlled"]:
        raise NotPermittedError(f"{med['name']} is a schedule {med['controlled_schedule']} controlled substance and "
                                f"clinician {clinician['clinician_id']} may not prescribe controlled substances")
    if med["drug_class"] in _split(patient["allergies"]):
        raise NotPermittedError(f"patient {patient_id} has a recorded {med['drug_class']} allergy")
    if med["required_lab_test"] and _recent_lab(ctx, patient_id, med["required_lab_test"], ctx.today) is None:
        raise NotPermittedError(f"{med['name']} needs a resulted {med['required_lab_test']} lab from the last 365 "
                                f"days; order one (order_lab_test) first")
    duplicate = ctx.db.fetch_one(
        "SELECT prescription_id FROM prescriptions WHERE patient_id = ? AND medication_id = ? AND status = 'active'",
        (patient_id, medication_id))
    if duplicate is not None:
        raise ConflictError(f"patient {patient_id} already has active prescription {duplicate['prescription_id']} "
                            f"for {med['name']}; refill it instead")
    found = _interactions(ctx, patient_id, medication_id)
    major = [i for i in found if i["severity"] == "major"]
    if major:
        raise ConflictError(f"major interaction with active prescription {major[0]['prescription_id']} "
                            f"({major[0]['interacting_medication_name']}): {major[0]['description']}")
    moderate = [i for i in found if i["severity"] == "moderate"]
    if moderate and not acknowledge_interactions:
        raise ConflictError(f"moderate interaction with {moderate[0]['interacting_medication_name']} "
                            f"({moderate[0]['prescription_id']}); call again with acknowledge_interactions true "
                            f"after counselling the patient")
    if med["controlled_schedule"] == 2:
        valid_days = EXPIRY_DAYS_SCHEDULE_2
    elif med["controlled_schedule"] > 0:
        valid_days = EXPIRY_DAYS_CONTROLLED
    else:
        valid_days = EXPIRY_DAYS_DEFAULT
    expires = (date.fromisoformat(ctx.today) + timedelta(days=valid_days)).isoformat()
    prescription_id = ctx.new_id("RX")
    ctx.db.execute(
        "INSERT INTO prescriptions (prescription_id, patient_id, clinician_id, medication_id, appointment_id, "
        "dosage_instructions, quantity, days_supply, refills_allowed, refills_used, status, prescribed_on, "
        "expires_on, last_filled_on, discontinued_reason) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 'active', ?, ?, ?, NULL)",
        (prescription_id, patient_id, clinician["clinician_id"], medication_id, appointment_id,
         _clean(dosage_instructions), quantity, days_supply, refills, ctx.today, expires, ctx.today),
    )
    view = _prescription_view(ctx, _prescription(ctx, prescription_id))
    view["acknowledged_interaction_ids"] = [i["interaction_id"] for i in found]
    return view


def find_prescriptions(ctx, acting_user_id: str, patient_id: str | None = None, status: str | None = None,
                       medication_id: str | None = None, clinician_id: str | None = None, limit: int = 20,
                       offset: int = 0) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    optional_choice(status, PRESCRIPTION_STATUSES, "status")
    if actor["kind"] == "patient":
        require_permission(patient_id is None or patient_id == actor["id"], CARE_RULE)
        patient_id = actor["id"]
    elif patient_id is not None:
        require_permission(_in_care(ctx, actor["id"], patient_id), CARE_RULE)
    carer = actor["id"] if actor["kind"] == "clinician" else None
    rows = ctx.db.fetch_all(
        "SELECT p.prescription_id, p.patient_id, p.clinician_id, p.medication_id, m.name AS medication_name, "
        "m.drug_class, p.appointment_id, p.quantity, p.days_supply, p.refills_allowed, p.refills_used, "
        "p.refills_allowed - p.refills_used AS refills_remaining, p.status, p.prescribed_on, p.expires_on, "
        "p.last_filled_on FROM prescriptions p JOIN medications m ON m.medication_id = p.medication_id "
        "WHERE (? IS NULL OR p.patient_id = ?) AND (? IS NULL OR p.status = ?) AND (? IS NULL OR p.medication_id = ?) "
        "AND (? IS NULL OR p.clinician_id = ?) AND (? IS NULL OR p.patient_id IN (SELECT a.patient_id FROM "
        "appointments a WHERE a.clinician_id = ? AND a.status <> 'cancelled')) "
        "ORDER BY p.prescribed_on DESC, p.prescription_id DESC",
        (patient_id, patient_id, status, status, medication_id, medication_id, clinician_id, clinician_id, carer,
         carer),
    )
    return _page(rows, limit, offset)


def get_prescription(ctx, acting_user_id: str, prescription_id: str) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    prescription = _prescription(ctx, prescription_id)
    require_permission(_may_act_on(ctx, actor, prescription["patient_id"]), CARE_RULE)
    return _prescription_view(ctx, prescription)


def refill_prescription(ctx, acting_user_id: str, prescription_id: str) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    prescription = _prescription(ctx, prescription_id)
    require_permission(_party_of(actor, prescription["patient_id"], prescription["clinician_id"]), REFILL_RULE)
    if prescription["status"] != "active":
        raise ConflictError(f"prescription {prescription_id} is {prescription['status']}, not active")
    if prescription["expires_on"] < ctx.today:
        raise ConflictError(f"prescription {prescription_id} expired on {prescription['expires_on']}; the patient "
                            f"needs a new prescription")
    if prescription["refills_used"] >= prescription["refills_allowed"]:
        raise ConflictError(f"prescription {prescription_id} has no refills left "
                            f"({prescription['refills_used']} of {prescription['refills_allowed']} used)")
    earliest = _next_refill_on(prescription)
    if ctx.today < earliest:
        raise ConflictError(f"too early: prescription {prescription_id} was filled on "
                            f"{prescription['last_filled_on']} for {prescription['days_supply']} days; it can be "
                            f"refilled from {earliest}")
    patient = _patient(ctx, prescription["patient_id"])
    if patient["status"] != "active":
        raise NotPermittedError(f"patient {patient['patient_id']} is inactive")
    used = prescription["refills_used"] + 1
    ctx.db.execute("UPDATE prescriptions SET refills_used = ?, last_filled_on = ? WHERE prescription_id = ?",
                   (used, ctx.today, prescription_id))
    row = _prescription(ctx, prescription_id)
    return {"prescription_id": prescription_id, "patient_id": row["patient_id"], "refills_used": used,
            "refills_remaining": row["refills_allowed"] - used, "last_filled_on": ctx.today,
            "status": row["status"], "next_refill_on": _next_refill_on(row)}


def discontinue_prescription(ctx, acting_clinician_id: str, prescription_id: str, reason: str) -> dict:
    actor = _actor(ctx, acting_clinician_id, "acting_clinician_id")
    prescription = _prescription(ctx, prescription_id)
    require_permission(actor["id"] == prescription["clinician_id"], DISCONTINUE_RULE)
    if not _clean(reason):
        raise InvalidArgumentError("reason must be non-empty")
    if prescription["status"] != "active":
        raise ConflictError(f"prescription {prescription_id} is {prescription['status']}, not active")
    ctx.db.execute(
        "UPDATE prescriptions SET status = 'discontinued', discontinued_reason = ? WHERE prescription_id = ?",
        (_clean(reason), prescription_id))
    return {"prescription_id": prescription_id, "patient_id": prescription["patient_id"],
            "medication_id": prescription["medication_id"], "status": "discontinued",
            "discontinued_reason": _clean(reason)}


# ----------------------------------------------------------------------------- labs
def order_lab_test(ctx, acting_clinician_id: str, appointment_id: str, test_code: str,
                   priority: str = "routine") -> dict:
    actor = _actor(ctx, acting_clinician_id, "acting_clinician_id")
    appointment = _appointment(ctx, appointment_id)
    require_permission(actor["id"] == appointment["clinician_id"], ORDER_LAB_RULE)
    require_choice(test_code, LAB_CODES, "test_code")
    require_choice(priority, ("routine", "stat"), "priority")
    price = _lab_price(test_code)
    if not _is_current_encounter(appointment, ctx.today):
        raise NotPermittedError(f"appointment {appointment_id} is {appointment['status']} on "
                                f"{appointment['scheduled_at'][:10]}: ordering labs needs a checked-in visit or one "
                                f"completed within the last 30 days")
    open_order = ctx.db.fetch_one(
        "SELECT lab_order_id, status FROM lab_orders WHERE patient_id = ? AND test_code = ? "
        "AND status IN ('ordered', 'collected')", (appointment["patient_id"], test_code))
    if open_order is not None:
        raise ConflictError(f"patient already has {test_code} order {open_order['lab_order_id']} "
                            f"({open_order['status']}); wait for its result")
    if priority == "stat":
        price = price + STAT_SURCHARGE
    lab_order_id = ctx.new_id("LAB")
    ctx.db.execute(
        "INSERT INTO lab_orders (lab_order_id, patient_id, clinician_id, appointment_id, test_code, priority, status, "
        "ordered_on, collected_on, resulted_on, price) VALUES (?, ?, ?, ?, ?, ?, 'ordered', ?, NULL, NULL, ?)",
        (lab_order_id, appointment["patient_id"], appointment["clinician_id"], appointment_id, test_code, priority,
         ctx.today, price),
    )
    return _lab_order(ctx, lab_order_id)


def find_lab_orders(ctx, acting_user_id: str, patient_id: str | None = None, status: str | None = None,
                    test_code: str | None = None, date_from: str | None = None, date_to: str | None = None,
                    limit: int = 20, offset: int = 0) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    _date_range(date_from, date_to)
    if actor["kind"] == "patient":
        require_permission(patient_id is None or patient_id == actor["id"], CARE_RULE)
        patient_id = actor["id"]
    elif patient_id is not None:
        require_permission(_in_care(ctx, actor["id"], patient_id), CARE_RULE)
    carer = actor["id"] if actor["kind"] == "clinician" else None
    optional_choice(status, LAB_STATUSES, "status")
    optional_choice(test_code, LAB_CODES, "test_code")
    rows = ctx.db.fetch_all(
        "SELECT * FROM lab_orders WHERE (? IS NULL OR patient_id = ?) AND (? IS NULL OR status = ?) "
        "AND (? IS NULL OR test_code = ?) AND (? IS NULL OR ordered_on >= ?) AND (? IS NULL OR ordered_on <= ?) "
        "AND (? IS NULL OR patient_id IN (SELECT a.patient_id FROM appointments a WHERE a.clinician_id = ? "
        "AND a.status <> 'cancelled')) ORDER BY ordered_on DESC, lab_order_id DESC",
        (patient_id, patient_id, status, status, test_code, test_code, date_from, date_from, date_to, date_to, carer,
         carer),
    )
    return _page(rows, limit, offset)


def record_lab_collection(ctx, acting_clinician_id: str, lab_order_id: str) -> dict:
    actor = _actor(ctx, acting_clinician_id, "acting_clinician_id")
    order = _lab_order(ctx, lab_order_id)
    require_permission(actor["id"] == order["clinician_id"], COLLECTION_RULE)
    if order["status"] != "ordered":
        raise ConflictError(f"lab order {lab_order_id} is {order['status']}; only ordered specimens can be collected")
    ctx.db.execute("UPDATE lab_orders SET status = 'collected', collected_on = ? WHERE lab_order_id = ?",
                   (ctx.today, lab_order_id))
    return _lab_order(ctx, lab_order_id)


def record_lab_result(ctx, acting_clinician_id: str, lab_order_id: str, results: list) -> dict:
    actor = _actor(ctx, acting_clinician_id, "acting_clinician_id")
    order = _lab_order(ctx, lab_order_id)
    require_permission(actor["id"] == order["clinician_id"], RESULT_RULE)
    panel = _panel(order["test_code"])
    given = [str(item.get("analyte", "")).upper() for item in results if isinstance(item, dict)]
    expected = [analyte for analyte, unit, low, high in panel]
    if len(given) != len(results) or sorted(given) != sorted(expected) or any(
            isinstance(item.get("value"), bool) or not isinstance(item.get("value"), (int, float)) or item["value"] < 0
            for item in results):
        raise InvalidArgumentError(f"results must give exactly one non-negative value for each {order['test_code']} "
                                   f"analyte: {', '.join(expected)}")
    if order["status"] != "collected":
        raise ConflictError(f"lab order {lab_order_id} is {order['status']}; results need a collected specimen")
    values = {str(item["analyte"]).upper(): float(item["value"]) for item in results}
    recorded = []
    for analyte, unit, low, high in panel:
        value = values[analyte]
        flag = "high" if value > high else ("low" if value < low else "normal")
        result_id = ctx.new_id("RES")
        ctx.db.execute(
            "INSERT INTO lab_results (result_id, lab_order_id, analyte, value, unit, reference_low, reference_high, "
            "flag) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (result_id, lab_order_id, analyte, value, unit, low, high, flag),
        )
        recorded.append({"result_id": result_id, "analyte": analyte, "value": value, "unit": unit,
                         "reference_low": low, "reference_high": high, "flag": flag})
    ctx.db.execute("UPDATE lab_orders SET status = 'resulted', resulted_on = ? WHERE lab_order_id = ?",
                   (ctx.today, lab_order_id))
    return {"lab_order_id": lab_order_id, "patient_id": order["patient_id"], "test_code": order["test_code"],
            "status": "resulted", "resulted_on": ctx.today,
            "abnormal_count": len([r for r in recorded if r["flag"] != "normal"]), "results": recorded}


def get_lab_results(ctx, acting_user_id: str, lab_order_id: str) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    order = _lab_order(ctx, lab_order_id)
    require_permission(_may_act_on(ctx, actor, order["patient_id"]), CARE_RULE)
    rows = ctx.db.fetch_all(
        "SELECT result_id, analyte, value, unit, reference_low, reference_high, flag FROM lab_results "
        "WHERE lab_order_id = ? ORDER BY result_id", (lab_order_id,))
    view = dict(order)
    view["results"] = rows
    view["abnormal_count"] = len([r for r in rows if r["flag"] != "normal"])
    return view


# ----------------------------------------------------------------------------- claims
def find_claims(ctx, acting_user_id: str, patient_id: str | None = None, status: str | None = None,
                appointment_id: str | None = None, coverage_id: str | None = None, date_from: str | None = None,
                date_to: str | None = None, limit: int = 20, offset: int = 0) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    _date_range(date_from, date_to)
    if actor["kind"] == "patient":
        require_permission(patient_id is None or patient_id == actor["id"], CLAIMS_RULE)
        patient_id = actor["id"]
    carer = actor["id"] if actor["kind"] == "clinician" else None
    optional_choice(status, CLAIM_STATUSES, "status")
    rows = ctx.db.fetch_all(
        "SELECT * FROM claims WHERE (? IS NULL OR patient_id = ?) AND (? IS NULL OR status = ?) "
        "AND (? IS NULL OR appointment_id = ?) AND (? IS NULL OR coverage_id = ?) "
        "AND (? IS NULL OR created_on >= ?) AND (? IS NULL OR created_on <= ?) "
        "AND (? IS NULL OR appointment_id IN (SELECT a.appointment_id FROM appointments a WHERE a.clinician_id = ?)) "
        "ORDER BY created_on DESC, claim_id DESC",
        (patient_id, patient_id, status, status, appointment_id, appointment_id, coverage_id, coverage_id,
         date_from, date_from, date_to, date_to, carer, carer),
    )
    return _page(rows, limit, offset)


def create_claim(ctx, acting_user_id: str, appointment_id: str, coverage_id: str) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    appointment = _appointment(ctx, appointment_id)
    coverage = _coverage(ctx, coverage_id)
    require_permission(_party_of(actor, appointment["patient_id"], appointment["clinician_id"]), CREATE_CLAIM_RULE)
    if appointment["status"] != "completed":
        raise ConflictError(f"appointment {appointment_id} is {appointment['status']}; only completed visits are billed")
    existing = ctx.db.fetch_one(
        "SELECT claim_id, status FROM claims WHERE appointment_id = ? AND status <> 'denied'", (appointment_id,))
    if existing is not None:
        raise ConflictError(f"appointment {appointment_id} already has claim {existing['claim_id']} "
                            f"({existing['status']})")
    if coverage["patient_id"] != appointment["patient_id"]:
        raise InvalidArgumentError(f"coverage {coverage_id} belongs to {coverage['patient_id']}, not to the visit's "
                                   f"patient {appointment['patient_id']}")
    visit_day = appointment["scheduled_at"][:10]
    if coverage["effective_from"] > visit_day or (coverage["effective_to"] is not None
                                                  and coverage["effective_to"] < visit_day):
        raise NotPermittedError(f"coverage {coverage_id} ({coverage['effective_from']} to "
                                f"{coverage['effective_to'] or 'open'}) was not in effect on {visit_day}")
    billed = appointment["fee"]
    patient_part = min(coverage["telehealth_copay"], billed)
    claim_id = ctx.new_id("CLM")
    ctx.db.execute(
        "INSERT INTO claims (claim_id, appointment_id, patient_id, coverage_id, amount_billed, patient_responsibility, "
        "payer_amount, status, created_on, submitted_on, decided_on, denial_reason, appeal_reason) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, 'draft', ?, NULL, NULL, NULL, NULL)",
        (claim_id, appointment_id, appointment["patient_id"], coverage_id, billed, patient_part,
         round(billed - patient_part, 2), ctx.today),
    )
    return _claim(ctx, claim_id)


def submit_claim(ctx, acting_user_id: str, claim_id: str) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    claim = _claim(ctx, claim_id)
    appointment = _appointment(ctx, claim["appointment_id"])
    require_permission(_party_of(actor, claim["patient_id"], appointment["clinician_id"]), SUBMIT_CLAIM_RULE)
    if claim["status"] != "draft":
        raise ConflictError(f"claim {claim_id} is {claim['status']}; only drafts can be submitted")
    deadline = date.fromisoformat(appointment["scheduled_at"][:10]) + timedelta(days=CLAIM_FILING_DAYS)
    if date.fromisoformat(ctx.today) > deadline:
        raise NotPermittedError(f"the filing deadline for the visit on {appointment['scheduled_at'][:10]} was "
                                f"{deadline.isoformat()} (90 days)")
    ctx.db.execute("UPDATE claims SET status = 'submitted', submitted_on = ? WHERE claim_id = ?", (ctx.today, claim_id))
    return _claim(ctx, claim_id)


def appeal_claim(ctx, acting_user_id: str, claim_id: str, reason: str) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    claim = _claim(ctx, claim_id)
    appointment = _appointment(ctx, claim["appointment_id"])
    require_permission(_party_of(actor, claim["patient_id"], appointment["clinician_id"]), APPEAL_CLAIM_RULE)
    if not _clean(reason):
        raise InvalidArgumentError("reason must be non-empty")
    if claim["status"] != "denied":
        raise ConflictError(f"claim {claim_id} is {claim['status']}; only denied claims can be appealed")
    deadline = date.fromisoformat(claim["decided_on"]) + timedelta(days=APPEAL_DAYS)
    if date.fromisoformat(ctx.today) > deadline:
        raise NotPermittedError(f"claim {claim_id} was denied on {claim['decided_on']}; the 60-day appeal window "
                                f"closed on {deadline.isoformat()}")
    ctx.db.execute("UPDATE claims SET status = 'appealed', appeal_reason = ? WHERE claim_id = ?",
                   (_clean(reason), claim_id))
    return _claim(ctx, claim_id)


# ----------------------------------------------------------------------------- messages
def send_message(ctx, acting_user_id: str, patient_id: str, clinician_id: str, subject: str, body: str,
                 reply_to_message_id: str | None = None) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    patient = _patient(ctx, patient_id)
    _clinician(ctx, clinician_id)
    require_permission(_party_of(actor, patient_id, clinician_id), SEND_RULE)
    sender = actor["kind"]
    original = None
    if reply_to_message_id is not None:
        original = require_row(
            ctx,
            "SELECT * FROM messages WHERE message_id = ?",
            (reply_to_message_id,),
            f"no message {reply_to_message_id}",
        )
    if not _clean(subject) or len(_clean(subject)) > 120 or not _clean(body) or len(_clean(body)) > 2000:
        raise InvalidArgumentError("subject must have 1-120 characters and body 1-2000")
    if original is not None and (original["patient_id"] != patient_id or original["clinician_id"] != clinician_id):
        raise InvalidArgumentError(f"message {reply_to_message_id} is between {original['patient_id']} and "
                                   f"{original['clinician_id']}, not this patient and clinician")
    if patient["status"] != "active":
        raise NotPermittedError(f"patient {patient_id} is inactive")
    relation = ctx.db.fetch_one(
        "SELECT count(*) AS n FROM appointments WHERE patient_id = ? AND clinician_id = ? AND status <> 'cancelled'",
        (patient_id, clinician_id))
    if relation["n"] == 0:
        raise NotPermittedError(f"patient {patient_id} has no visit with clinician {clinician_id}; messaging needs a "
                                f"care relationship (book an appointment first)")
    message_id = ctx.new_id("MSG")
    ctx.db.execute(
        "INSERT INTO messages (message_id, patient_id, clinician_id, sender, subject, body, sent_at, read_at, "
        "reply_to_message_id) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?)",
        (message_id, patient_id, clinician_id, sender, _clean(subject), _clean(body), ctx.now, reply_to_message_id),
    )
    return ctx.db.fetch_one("SELECT * FROM messages WHERE message_id = ?", (message_id,))


def list_messages(ctx, acting_user_id: str, patient_id: str | None = None, clinician_id: str | None = None,
                  unread_only: bool = False, sender: str | None = None, text: str | None = None, limit: int = 20,
                  offset: int = 0) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    optional_choice(sender, SENDERS, "sender")
    if actor["kind"] == "patient":
        require_permission(patient_id is None or patient_id == actor["id"], MESSAGES_RULE)
        patient_id = actor["id"]
    else:
        require_permission(clinician_id is None or clinician_id == actor["id"], MESSAGES_RULE)
        clinician_id = actor["id"]
    rows = ctx.db.fetch_all(
        "SELECT * FROM messages WHERE (? IS NULL OR patient_id = ?) AND (? IS NULL OR clinician_id = ?) "
        "AND (? = 0 OR read_at IS NULL) AND (? IS NULL OR sender = ?) "
        "AND (? IS NULL OR subject LIKE '%' || ? || '%' OR body LIKE '%' || ? || '%') "
        "ORDER BY sent_at DESC, message_id DESC",
        (patient_id, patient_id, clinician_id, clinician_id, 1 if unread_only else 0, sender, sender, text, text, text),
    )
    return _page(rows, limit, offset)


def mark_message_read(ctx, acting_user_id: str, message_id: str) -> dict:
    actor = _actor(ctx, acting_user_id, "acting_user_id")
    message = require_row(
        ctx,
        "SELECT * FROM messages WHERE message_id = ?",
        (message_id,),
        f"no message {message_id} (ids look like MSG-00001; use list_messages)",
    )
    recipient = message["clinician_id"] if message["sender"] == "patient" else message["patient_id"]
    require_permission(actor["id"] == recipient, READ_RULE)
    if message["read_at"] is not None:
        raise ConflictError(f"message {message_id} was already read at {message['read_at']}")
    ctx.db.execute("UPDATE messages SET read_at = ? WHERE message_id = ?", (ctx.now, message_id))
    return {"message_id": message_id, "patient_id": message["patient_id"], "clinician_id": message["clinician_id"],
            "read_at": ctx.now}
