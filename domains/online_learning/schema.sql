-- Online learning: learners enrol in scheduled course runs taught by instructors, pay (with coupons),
-- submit graded assignments, take quizzes, earn certificates and ask for refunds.
-- Money is USD cents (INTEGER), dates YYYY-MM-DD, timestamps YYYY-MM-DDTHH:MM:SS, grades whole percent.

CREATE TABLE learners (
    learner_id TEXT PRIMARY KEY,
    full_name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    date_of_birth TEXT NOT NULL,
    country TEXT NOT NULL CHECK (length(country) = 2),
    status TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
    joined_on TEXT NOT NULL
) STRICT;

CREATE TABLE instructors (
    instructor_id TEXT PRIMARY KEY,
    full_name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    expertise TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'on_leave'))
) STRICT;

CREATE TABLE courses (
    course_id TEXT PRIMARY KEY,
    code TEXT NOT NULL,
    title TEXT NOT NULL,
    category TEXT NOT NULL CHECK (category IN ('data', 'programming', 'design', 'business', 'languages')),
    level TEXT NOT NULL CHECK (level IN ('beginner', 'intermediate', 'advanced')),
    instructor_id TEXT NOT NULL REFERENCES instructors(instructor_id),
    prerequisite_code TEXT,
    price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
    seat_limit INTEGER NOT NULL CHECK (seat_limit BETWEEN 1 AND 500),
    seats_taken INTEGER NOT NULL CHECK (seats_taken >= 0 AND seats_taken <= seat_limit),
    start_date TEXT NOT NULL,
    end_date TEXT NOT NULL CHECK (end_date > start_date),
    pass_mark_percent INTEGER NOT NULL CHECK (pass_mark_percent BETWEEN 1 AND 100),
    status TEXT NOT NULL CHECK (status IN ('draft', 'published', 'archived'))
) STRICT;

CREATE TABLE modules (
    module_id TEXT PRIMARY KEY,
    course_id TEXT NOT NULL REFERENCES courses(course_id),
    position INTEGER NOT NULL CHECK (position >= 1),
    title TEXT NOT NULL,
    UNIQUE (course_id, position)
) STRICT;

CREATE TABLE lessons (
    lesson_id TEXT PRIMARY KEY,
    module_id TEXT NOT NULL REFERENCES modules(module_id),
    position INTEGER NOT NULL CHECK (position >= 1),
    title TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('video', 'reading', 'lab')),
    duration_minutes INTEGER NOT NULL CHECK (duration_minutes BETWEEN 1 AND 240),
    UNIQUE (module_id, position)
) STRICT;

CREATE TABLE coupons (
    coupon_id TEXT PRIMARY KEY,
    code TEXT NOT NULL UNIQUE,
    percent_off INTEGER NOT NULL CHECK (percent_off BETWEEN 5 AND 100),
    course_id TEXT REFERENCES courses(course_id),
    valid_from TEXT NOT NULL,
    valid_until TEXT NOT NULL CHECK (valid_until >= valid_from),
    max_uses INTEGER NOT NULL CHECK (max_uses >= 1),
    times_used INTEGER NOT NULL CHECK (times_used >= 0 AND times_used <= max_uses),
    status TEXT NOT NULL CHECK (status IN ('active', 'disabled'))
) STRICT;

CREATE TABLE enrolments (
    enrolment_id TEXT PRIMARY KEY,
    learner_id TEXT NOT NULL REFERENCES learners(learner_id),
    course_id TEXT NOT NULL REFERENCES courses(course_id),
    status TEXT NOT NULL CHECK (status IN ('pending_payment', 'active', 'completed', 'withdrawn')),
    enrolled_on TEXT NOT NULL,
    list_price_cents INTEGER NOT NULL CHECK (list_price_cents >= 0),
    coupon_id TEXT REFERENCES coupons(coupon_id),
    discount_cents INTEGER NOT NULL CHECK (discount_cents >= 0 AND discount_cents <= list_price_cents),
    paid_cents INTEGER NOT NULL CHECK (paid_cents >= 0),
    paid_on TEXT,
    payment_method TEXT CHECK (payment_method IS NULL OR payment_method IN ('card', 'paypal', 'bank_transfer', 'coupon')),
    refunded_cents INTEGER NOT NULL CHECK (refunded_cents >= 0 AND refunded_cents <= paid_cents),
    completed_on TEXT,
    final_grade_percent INTEGER CHECK (final_grade_percent IS NULL OR final_grade_percent BETWEEN 0 AND 100)
) STRICT;

CREATE TABLE assignments (
    assignment_id TEXT PRIMARY KEY,
    course_id TEXT NOT NULL REFERENCES courses(course_id),
    module_id TEXT NOT NULL REFERENCES modules(module_id),
    title TEXT NOT NULL,
    max_points INTEGER NOT NULL CHECK (max_points BETWEEN 1 AND 200),
    due_date TEXT NOT NULL,
    grace_days INTEGER NOT NULL CHECK (grace_days BETWEEN 0 AND 14)
) STRICT;

CREATE TABLE submissions (
    submission_id TEXT PRIMARY KEY,
    assignment_id TEXT NOT NULL REFERENCES assignments(assignment_id),
    enrolment_id TEXT NOT NULL REFERENCES enrolments(enrolment_id),
    learner_id TEXT NOT NULL REFERENCES learners(learner_id),
    submitted_at TEXT NOT NULL,
    revision INTEGER NOT NULL CHECK (revision >= 1),
    content_url TEXT NOT NULL,
    is_late INTEGER NOT NULL CHECK (is_late IN (0, 1)),
    status TEXT NOT NULL CHECK (status IN ('submitted', 'returned', 'graded')),
    raw_points INTEGER CHECK (raw_points IS NULL OR raw_points >= 0),
    points INTEGER CHECK (points IS NULL OR points >= 0),
    graded_by TEXT REFERENCES instructors(instructor_id),
    graded_on TEXT,
    feedback TEXT,
    UNIQUE (assignment_id, enrolment_id)
) STRICT;

CREATE TABLE quizzes (
    quiz_id TEXT PRIMARY KEY,
    course_id TEXT NOT NULL REFERENCES courses(course_id),
    title TEXT NOT NULL,
    question_count INTEGER NOT NULL CHECK (question_count BETWEEN 1 AND 100),
    pass_percent INTEGER NOT NULL CHECK (pass_percent BETWEEN 1 AND 100),
    max_attempts INTEGER NOT NULL CHECK (max_attempts BETWEEN 1 AND 5),
    time_limit_minutes INTEGER NOT NULL CHECK (time_limit_minutes BETWEEN 5 AND 180)
) STRICT;

CREATE TABLE quiz_attempts (
    attempt_id TEXT PRIMARY KEY,
    quiz_id TEXT NOT NULL REFERENCES quizzes(quiz_id),
    enrolment_id TEXT NOT NULL REFERENCES enrolments(enrolment_id),
    attempt_number INTEGER NOT NULL CHECK (attempt_number BETWEEN 1 AND 5),
    started_at TEXT NOT NULL,
    submitted_at TEXT,
    correct_answers INTEGER CHECK (correct_answers IS NULL OR correct_answers >= 0),
    score_percent INTEGER CHECK (score_percent IS NULL OR score_percent BETWEEN 0 AND 100),
    status TEXT NOT NULL CHECK (status IN ('in_progress', 'passed', 'failed')),
    UNIQUE (quiz_id, enrolment_id, attempt_number)
) STRICT;

CREATE TABLE certificates (
    certificate_id TEXT PRIMARY KEY,
    enrolment_id TEXT NOT NULL UNIQUE REFERENCES enrolments(enrolment_id),
    learner_id TEXT NOT NULL REFERENCES learners(learner_id),
    course_id TEXT NOT NULL REFERENCES courses(course_id),
    verification_code TEXT NOT NULL UNIQUE,
    issued_on TEXT NOT NULL,
    final_grade_percent INTEGER NOT NULL CHECK (final_grade_percent BETWEEN 0 AND 100),
    status TEXT NOT NULL CHECK (status IN ('valid', 'revoked')),
    revoked_reason TEXT
) STRICT;

CREATE TABLE refunds (
    refund_id TEXT PRIMARY KEY,
    enrolment_id TEXT NOT NULL REFERENCES enrolments(enrolment_id),
    amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
    reason TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
    requested_on TEXT NOT NULL,
    decided_on TEXT,
    decision_note TEXT
) STRICT;
