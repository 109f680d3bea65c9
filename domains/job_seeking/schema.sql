-- Job seeking: candidates with resumes and skills apply to companies' job postings, go through
-- interviews, negotiate offers, ask employees for referrals and keep reminders. Each company's
-- recruiters own its postings and move its applications, interviews and offers.
-- Salaries and bonuses are whole US dollars per year (INTEGER), dates YYYY-MM-DD,
-- timestamps YYYY-MM-DDTHH:MM:SS.

CREATE TABLE candidates (
    candidate_id TEXT PRIMARY KEY,
    full_name TEXT NOT NULL,
    date_of_birth TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    phone TEXT NOT NULL,
    city TEXT NOT NULL,
    headline TEXT NOT NULL,
    years_experience INTEGER NOT NULL CHECK (years_experience BETWEEN 0 AND 50),
    desired_salary INTEGER NOT NULL CHECK (desired_salary > 0),
    status TEXT NOT NULL CHECK (status IN ('active', 'paused', 'hired')),
    joined_on TEXT NOT NULL
) STRICT;

CREATE TABLE candidate_skills (
    candidate_skill_id TEXT PRIMARY KEY,
    candidate_id TEXT NOT NULL REFERENCES candidates(candidate_id),
    skill_name TEXT NOT NULL,
    level TEXT NOT NULL CHECK (level IN ('beginner', 'intermediate', 'advanced', 'expert')),
    years INTEGER NOT NULL CHECK (years BETWEEN 0 AND 50),
    UNIQUE (candidate_id, skill_name)
) STRICT;

CREATE TABLE companies (
    company_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    industry TEXT NOT NULL,
    headquarters_city TEXT NOT NULL,
    email_domain TEXT NOT NULL UNIQUE,
    size_band TEXT NOT NULL CHECK (size_band IN ('startup', 'midsize', 'enterprise')),
    hiring_status TEXT NOT NULL CHECK (hiring_status IN ('hiring', 'freeze'))
) STRICT;

CREATE TABLE recruiters (
    recruiter_id TEXT PRIMARY KEY,
    company_id TEXT NOT NULL REFERENCES companies(company_id),
    full_name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    phone TEXT NOT NULL,
    job_title TEXT NOT NULL
) STRICT;

CREATE TABLE job_postings (
    job_id TEXT PRIMARY KEY,
    company_id TEXT NOT NULL REFERENCES companies(company_id),
    recruiter_id TEXT NOT NULL REFERENCES recruiters(recruiter_id),
    title TEXT NOT NULL,
    department TEXT NOT NULL,
    location TEXT NOT NULL,
    work_mode TEXT NOT NULL CHECK (work_mode IN ('onsite', 'hybrid', 'remote')),
    employment_type TEXT NOT NULL CHECK (employment_type IN ('full_time', 'part_time', 'contract')),
    seniority TEXT NOT NULL CHECK (seniority IN ('junior', 'mid', 'senior', 'lead')),
    salary_min INTEGER NOT NULL CHECK (salary_min > 0),
    salary_max INTEGER NOT NULL,
    openings INTEGER NOT NULL CHECK (openings >= 0),
    status TEXT NOT NULL CHECK (status IN ('open', 'paused', 'closed', 'filled')),
    posted_on TEXT NOT NULL,
    closes_on TEXT NOT NULL,
    CHECK (salary_max >= salary_min),
    CHECK (closes_on >= posted_on),
    CHECK (status <> 'filled' OR openings = 0)
) STRICT;

CREATE TABLE job_skills (
    job_skill_id TEXT PRIMARY KEY,
    job_id TEXT NOT NULL REFERENCES job_postings(job_id),
    skill_name TEXT NOT NULL,
    importance TEXT NOT NULL CHECK (importance IN ('required', 'preferred')),
    UNIQUE (job_id, skill_name)
) STRICT;

CREATE TABLE resumes (
    resume_id TEXT PRIMARY KEY,
    candidate_id TEXT NOT NULL REFERENCES candidates(candidate_id),
    title TEXT NOT NULL,
    summary TEXT NOT NULL,
    version INTEGER NOT NULL CHECK (version >= 1),
    status TEXT NOT NULL CHECK (status IN ('draft', 'final', 'archived')),
    updated_on TEXT NOT NULL
) STRICT;

CREATE TABLE referrals (
    referral_id TEXT PRIMARY KEY,
    candidate_id TEXT NOT NULL REFERENCES candidates(candidate_id),
    job_id TEXT NOT NULL REFERENCES job_postings(job_id),
    referrer_name TEXT NOT NULL,
    referrer_email TEXT NOT NULL,
    relationship TEXT NOT NULL CHECK (relationship IN ('former_colleague', 'friend', 'classmate', 'former_manager', 'other')),
    status TEXT NOT NULL CHECK (status IN ('requested', 'submitted', 'used', 'expired')),
    requested_on TEXT NOT NULL,
    submitted_on TEXT,
    CHECK ((status IN ('submitted', 'used')) = (submitted_on IS NOT NULL))
) STRICT;

CREATE TABLE applications (
    application_id TEXT PRIMARY KEY,
    candidate_id TEXT NOT NULL REFERENCES candidates(candidate_id),
    job_id TEXT NOT NULL REFERENCES job_postings(job_id),
    resume_id TEXT NOT NULL REFERENCES resumes(resume_id),
    referral_id TEXT REFERENCES referrals(referral_id),
    source TEXT NOT NULL CHECK (source IN ('direct', 'referral')),
    stage TEXT NOT NULL CHECK (stage IN ('applied', 'screening', 'interview', 'offer', 'hired', 'rejected', 'withdrawn')),
    applied_on TEXT NOT NULL,
    updated_on TEXT NOT NULL,
    cover_note TEXT,
    closed_reason TEXT,
    UNIQUE (candidate_id, job_id),
    CHECK ((source = 'referral') = (referral_id IS NOT NULL)),
    CHECK (updated_on >= applied_on)
) STRICT;

CREATE TABLE interviews (
    interview_id TEXT PRIMARY KEY,
    application_id TEXT NOT NULL REFERENCES applications(application_id),
    round INTEGER NOT NULL CHECK (round >= 1),
    interview_type TEXT NOT NULL CHECK (interview_type IN ('phone_screen', 'technical', 'onsite', 'hiring_manager', 'panel')),
    interviewer_name TEXT NOT NULL,
    scheduled_at TEXT NOT NULL,
    duration_minutes INTEGER NOT NULL CHECK (duration_minutes BETWEEN 15 AND 240),
    status TEXT NOT NULL CHECK (status IN ('scheduled', 'completed', 'cancelled', 'no_show')),
    reschedule_count INTEGER NOT NULL CHECK (reschedule_count BETWEEN 0 AND 2),
    rating INTEGER CHECK (rating BETWEEN 1 AND 5),
    recommendation TEXT CHECK (recommendation IN ('strong_yes', 'yes', 'no', 'strong_no')),
    feedback TEXT,
    CHECK ((status = 'completed') = (rating IS NOT NULL)),
    CHECK ((rating IS NULL) = (recommendation IS NULL))
) STRICT;

CREATE TABLE offers (
    offer_id TEXT PRIMARY KEY,
    application_id TEXT NOT NULL REFERENCES applications(application_id),
    base_salary INTEGER NOT NULL CHECK (base_salary > 0),
    bonus INTEGER NOT NULL CHECK (bonus >= 0),
    start_date TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('extended', 'countered', 'accepted', 'declined', 'rescinded', 'expired')),
    extended_on TEXT NOT NULL,
    expires_on TEXT NOT NULL,
    negotiation_round INTEGER NOT NULL CHECK (negotiation_round BETWEEN 0 AND 3),
    counter_salary INTEGER CHECK (counter_salary > 0),
    responded_on TEXT,
    decline_reason TEXT,
    CHECK (expires_on >= extended_on),
    CHECK (status <> 'countered' OR counter_salary IS NOT NULL)
) STRICT;

CREATE TABLE reminders (
    reminder_id TEXT PRIMARY KEY,
    candidate_id TEXT NOT NULL REFERENCES candidates(candidate_id),
    application_id TEXT REFERENCES applications(application_id),
    due_on TEXT NOT NULL,
    message TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'done')),
    created_on TEXT NOT NULL,
    completed_on TEXT,
    CHECK ((status = 'done') = (completed_on IS NOT NULL))
) STRICT;
