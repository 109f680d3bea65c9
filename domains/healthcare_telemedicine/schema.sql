-- Healthcare telemedicine: a multi-state virtual clinic.
-- Times are clinic-local ISO-8601 'YYYY-MM-DDTHH:MM:SS'; dates 'YYYY-MM-DD'; money in US dollars.

CREATE TABLE patients (
    patient_id TEXT PRIMARY KEY CHECK (patient_id GLOB 'PAT-[0-9][0-9][0-9][0-9][0-9]'),
    first_name TEXT NOT NULL CHECK (length(first_name) > 0),
    last_name TEXT NOT NULL CHECK (length(last_name) > 0),
    date_of_birth TEXT NOT NULL CHECK (date_of_birth GLOB '[12][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]'),
    sex TEXT NOT NULL CHECK (sex IN ('female', 'male', 'other')),
    email TEXT NOT NULL CHECK (email LIKE '%_@_%._%'),
    phone TEXT NOT NULL,
    address_line TEXT NOT NULL,
    city TEXT NOT NULL,
    state TEXT NOT NULL CHECK (length(state) = 2 AND state = upper(state)),
    postal_code TEXT NOT NULL CHECK (postal_code GLOB '[0-9][0-9][0-9][0-9][0-9]'),
    allergies TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'inactive')),
    registered_on TEXT NOT NULL
) STRICT;

CREATE TABLE clinicians (
    clinician_id TEXT PRIMARY KEY CHECK (clinician_id GLOB 'CLN-[0-9][0-9][0-9][0-9][0-9]'),
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    npi TEXT NOT NULL UNIQUE CHECK (npi GLOB '1[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]'),
    credential TEXT NOT NULL CHECK (credential IN ('MD', 'DO', 'NP', 'PA')),
    specialty TEXT NOT NULL CHECK (specialty IN ('family_medicine', 'internal_medicine', 'pediatrics', 'dermatology',
                                                 'psychiatry', 'cardiology', 'endocrinology')),
    licensed_states TEXT NOT NULL CHECK (length(licensed_states) >= 2),
    can_prescribe_controlled INTEGER NOT NULL CHECK (can_prescribe_controlled IN (0, 1)),
    visit_fee REAL NOT NULL CHECK (visit_fee >= 0),
    email TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'on_leave', 'inactive'))
) STRICT;

CREATE TABLE availability_slots (
    slot_id TEXT PRIMARY KEY CHECK (slot_id GLOB 'SLT-[0-9][0-9][0-9][0-9][0-9]'),
    clinician_id TEXT NOT NULL REFERENCES clinicians(clinician_id),
    starts_at TEXT NOT NULL,
    duration_minutes INTEGER NOT NULL CHECK (duration_minutes IN (15, 20, 30, 45, 60)),
    status TEXT NOT NULL CHECK (status IN ('open', 'booked', 'blocked')),
    UNIQUE (clinician_id, starts_at)
) STRICT;

CREATE TABLE triage_assessments (
    triage_id TEXT PRIMARY KEY CHECK (triage_id GLOB 'TRI-[0-9][0-9][0-9][0-9][0-9]'),
    patient_id TEXT NOT NULL REFERENCES patients(patient_id),
    submitted_at TEXT NOT NULL,
    symptoms TEXT NOT NULL CHECK (length(symptoms) > 0),
    severity INTEGER NOT NULL CHECK (severity BETWEEN 1 AND 10),
    red_flags TEXT NOT NULL,
    acuity TEXT NOT NULL CHECK (acuity IN ('emergency', 'urgent', 'routine')),
    recommended_specialty TEXT NOT NULL CHECK (recommended_specialty IN ('family_medicine', 'internal_medicine',
                                               'pediatrics', 'dermatology', 'psychiatry', 'cardiology', 'endocrinology')),
    status TEXT NOT NULL CHECK (status IN ('open', 'scheduled', 'referred_er', 'closed')),
    CHECK ((acuity = 'emergency') = (status = 'referred_er'))
) STRICT;

CREATE TABLE appointments (
    appointment_id TEXT PRIMARY KEY CHECK (appointment_id GLOB 'APT-[0-9][0-9][0-9][0-9][0-9]'),
    patient_id TEXT NOT NULL REFERENCES patients(patient_id),
    clinician_id TEXT NOT NULL REFERENCES clinicians(clinician_id),
    slot_id TEXT NOT NULL REFERENCES availability_slots(slot_id),
    triage_id TEXT REFERENCES triage_assessments(triage_id),
    scheduled_at TEXT NOT NULL,
    visit_type TEXT NOT NULL CHECK (visit_type IN ('new_patient', 'follow_up', 'urgent_care')),
    reason TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('scheduled', 'checked_in', 'completed', 'cancelled', 'no_show')),
    fee REAL NOT NULL CHECK (fee >= 0),
    cancellation_fee REAL NOT NULL CHECK (cancellation_fee >= 0),
    reschedule_count INTEGER NOT NULL CHECK (reschedule_count BETWEEN 0 AND 2),
    booked_at TEXT NOT NULL,
    checked_in_at TEXT,
    diagnosis_code TEXT,
    visit_notes TEXT,
    cancel_reason TEXT,
    CHECK (status <> 'completed' OR diagnosis_code IS NOT NULL),
    CHECK (status <> 'cancelled' OR cancel_reason IS NOT NULL)
) STRICT;

CREATE UNIQUE INDEX appointments_one_live_per_slot ON appointments(slot_id)
    WHERE status IN ('scheduled', 'checked_in', 'completed', 'no_show');

CREATE TABLE medications (
    medication_id TEXT PRIMARY KEY CHECK (medication_id GLOB 'MED-[0-9][0-9][0-9][0-9][0-9]'),
    name TEXT NOT NULL UNIQUE,
    generic_name TEXT NOT NULL,
    drug_class TEXT NOT NULL,
    strength TEXT NOT NULL,
    form TEXT NOT NULL CHECK (form IN ('tablet', 'capsule', 'inhaler', 'cream', 'nasal_spray', 'injection_pen')),
    controlled_schedule INTEGER NOT NULL CHECK (controlled_schedule IN (0, 2, 3, 4, 5)),
    max_refills INTEGER NOT NULL CHECK (max_refills BETWEEN 0 AND 11),
    required_lab_test TEXT CHECK (required_lab_test IN ('CBC', 'BMP', 'CMP', 'LIPID', 'A1C', 'TSH', 'VITD', 'PSA')),
    CHECK (controlled_schedule <> 2 OR max_refills = 0)
) STRICT;

CREATE TABLE drug_interactions (
    interaction_id TEXT PRIMARY KEY CHECK (interaction_id GLOB 'DIX-[0-9][0-9][0-9][0-9][0-9]'),
    medication_id TEXT NOT NULL REFERENCES medications(medication_id),
    interacting_medication_id TEXT NOT NULL REFERENCES medications(medication_id),
    severity TEXT NOT NULL CHECK (severity IN ('major', 'moderate', 'minor')),
    description TEXT NOT NULL,
    CHECK (medication_id < interacting_medication_id),
    UNIQUE (medication_id, interacting_medication_id)
) STRICT;

CREATE TABLE prescriptions (
    prescription_id TEXT PRIMARY KEY CHECK (prescription_id GLOB 'RX-[0-9][0-9][0-9][0-9][0-9]'),
    patient_id TEXT NOT NULL REFERENCES patients(patient_id),
    clinician_id TEXT NOT NULL REFERENCES clinicians(clinician_id),
    medication_id TEXT NOT NULL REFERENCES medications(medication_id),
    appointment_id TEXT NOT NULL REFERENCES appointments(appointment_id),
    dosage_instructions TEXT NOT NULL CHECK (length(dosage_instructions) > 0),
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    days_supply INTEGER NOT NULL CHECK (days_supply BETWEEN 1 AND 90),
    refills_allowed INTEGER NOT NULL CHECK (refills_allowed BETWEEN 0 AND 11),
    refills_used INTEGER NOT NULL CHECK (refills_used >= 0),
    status TEXT NOT NULL CHECK (status IN ('active', 'completed', 'discontinued', 'expired')),
    prescribed_on TEXT NOT NULL,
    expires_on TEXT NOT NULL,
    last_filled_on TEXT NOT NULL,
    discontinued_reason TEXT,
    CHECK (refills_used <= refills_allowed),
    CHECK (expires_on > prescribed_on),
    CHECK (last_filled_on >= prescribed_on),
    CHECK (status <> 'discontinued' OR discontinued_reason IS NOT NULL)
) STRICT;

CREATE TABLE lab_orders (
    lab_order_id TEXT PRIMARY KEY CHECK (lab_order_id GLOB 'LAB-[0-9][0-9][0-9][0-9][0-9]'),
    patient_id TEXT NOT NULL REFERENCES patients(patient_id),
    clinician_id TEXT NOT NULL REFERENCES clinicians(clinician_id),
    appointment_id TEXT NOT NULL REFERENCES appointments(appointment_id),
    test_code TEXT NOT NULL CHECK (test_code IN ('CBC', 'BMP', 'CMP', 'LIPID', 'A1C', 'TSH', 'VITD', 'PSA')),
    priority TEXT NOT NULL CHECK (priority IN ('routine', 'stat')),
    status TEXT NOT NULL CHECK (status IN ('ordered', 'collected', 'resulted', 'cancelled')),
    ordered_on TEXT NOT NULL,
    collected_on TEXT,
    resulted_on TEXT,
    price REAL NOT NULL CHECK (price >= 0),
    CHECK (status NOT IN ('collected', 'resulted') OR collected_on IS NOT NULL),
    CHECK (status <> 'resulted' OR resulted_on IS NOT NULL)
) STRICT;

CREATE TABLE lab_results (
    result_id TEXT PRIMARY KEY CHECK (result_id GLOB 'RES-[0-9][0-9][0-9][0-9][0-9]'),
    lab_order_id TEXT NOT NULL REFERENCES lab_orders(lab_order_id),
    analyte TEXT NOT NULL,
    value REAL NOT NULL CHECK (value >= 0),
    unit TEXT NOT NULL,
    reference_low REAL NOT NULL,
    reference_high REAL NOT NULL,
    flag TEXT NOT NULL CHECK (flag IN ('normal', 'low', 'high')),
    CHECK (reference_low <= reference_high),
    UNIQUE (lab_order_id, analyte)
) STRICT;

CREATE TABLE coverages (
    coverage_id TEXT PRIMARY KEY CHECK (coverage_id GLOB 'COV-[0-9][0-9][0-9][0-9][0-9]'),
    patient_id TEXT NOT NULL REFERENCES patients(patient_id),
    payer_name TEXT NOT NULL,
    plan_name TEXT NOT NULL,
    member_number TEXT NOT NULL,
    telehealth_copay REAL NOT NULL CHECK (telehealth_copay >= 0),
    status TEXT NOT NULL CHECK (status IN ('active', 'terminated')),
    effective_from TEXT NOT NULL,
    effective_to TEXT,
    CHECK (effective_to IS NULL OR effective_to >= effective_from),
    CHECK (status <> 'terminated' OR effective_to IS NOT NULL)
) STRICT;

CREATE UNIQUE INDEX coverages_one_active_per_patient ON coverages(patient_id) WHERE status = 'active';

CREATE TABLE claims (
    claim_id TEXT PRIMARY KEY CHECK (claim_id GLOB 'CLM-[0-9][0-9][0-9][0-9][0-9]'),
    appointment_id TEXT NOT NULL REFERENCES appointments(appointment_id),
    patient_id TEXT NOT NULL REFERENCES patients(patient_id),
    coverage_id TEXT NOT NULL REFERENCES coverages(coverage_id),
    amount_billed REAL NOT NULL CHECK (amount_billed >= 0),
    patient_responsibility REAL NOT NULL CHECK (patient_responsibility >= 0),
    payer_amount REAL NOT NULL CHECK (payer_amount >= 0),
    status TEXT NOT NULL CHECK (status IN ('draft', 'submitted', 'approved', 'denied', 'appealed', 'paid')),
    created_on TEXT NOT NULL,
    submitted_on TEXT,
    decided_on TEXT,
    denial_reason TEXT,
    appeal_reason TEXT,
    CHECK (abs(patient_responsibility + payer_amount - amount_billed) < 0.005),
    CHECK (status = 'draft' OR submitted_on IS NOT NULL),
    CHECK (status NOT IN ('denied', 'appealed') OR denial_reason IS NOT NULL)
) STRICT;

CREATE TABLE messages (
    message_id TEXT PRIMARY KEY CHECK (message_id GLOB 'MSG-[0-9][0-9][0-9][0-9][0-9]'),
    patient_id TEXT NOT NULL REFERENCES patients(patient_id),
    clinician_id TEXT NOT NULL REFERENCES clinicians(clinician_id),
    sender TEXT NOT NULL CHECK (sender IN ('patient', 'clinician')),
    subject TEXT NOT NULL CHECK (length(subject) BETWEEN 1 AND 120),
    body TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 2000),
    sent_at TEXT NOT NULL,
    read_at TEXT,
    reply_to_message_id TEXT REFERENCES messages(message_id),
    CHECK (read_at IS NULL OR read_at >= sent_at)
) STRICT;
