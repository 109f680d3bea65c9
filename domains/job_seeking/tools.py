"""Tools of the job_seeking domain: profiles, resumes, job search, referrals, applications,
interviews, offers with salary negotiation, and reminders.

The platform acts for two kinds of people: candidates (job seekers, CAN-NNNNN) and the recruiters
of the companies (RCT-NNNNN). Every call that changes state or reads someone's private data names
the person it acts for (acting_candidate_id, acting_recruiter_id, or acting_user_id where both
kinds may call) and is refused with permission_denied when that person may not make it: a
candidate acts only on her own profile, resumes, applications, offers and reminders; a recruiter
only on the postings of her own company and their referrals, applications, interviews and offers.

Salaries and bonuses are whole US dollars per year, dates YYYY-MM-DD, timestamps
YYYY-MM-DDTHH:MM:SS (local time of the interview).
"""

from re import sub
from datetime import date, datetime, timedelta

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

OPEN_STAGES = ("applied", "screening", "interview", "offer")
CLOSED_STAGES = ("hired", "rejected", "withdrawn")
NEXT_STAGE = (("applied", "screening"), ("screening", "interview"))
SKILL_LEVELS = ("beginner", "intermediate", "advanced", "expert")
RELATIONSHIPS = ("former_colleague", "friend", "classmate", "former_manager", "other")
INTERVIEW_TYPES = ("phone_screen", "technical", "onsite", "hiring_manager", "panel")
RECOMMENDATIONS = ("strong_yes", "yes", "no", "strong_no")
JOB_STATUSES = ("open", "paused", "closed", "filled", "any")
MAX_ACTIVE_RESUMES = 5
MIN_SUMMARY_CHARS = 40
REFERRAL_VALID_DAYS = 30
WORKDAY_START_HOUR = 8
WORKDAY_END_HOUR = 18
MIN_INTERVIEW_MINUTES = 15
MAX_INTERVIEW_MINUTES = 240
MAX_RESCHEDULES = 2
OFFER_MIN_DAYS = 3
OFFER_MAX_DAYS = 14
REVISED_OFFER_DAYS = 5
MAX_NEGOTIATION_ROUNDS = 3
MAX_COUNTER_PERCENT = 25
REMINDER_HORIZON_DAYS = 90

PROFILE_RULE = "a candidate may update only their own profile"
SKILL_RULE = "a candidate may add skills only to their own profile"
CREATE_RESUME_RULE = "a candidate may create resumes only for themself"
RESUME_RULE = "only the candidate who owns the resume may finalize or archive it"
REQUEST_REFERRAL_RULE = "a candidate may request referrals only for themself"
CONFIRM_REFERRAL_RULE = "only a recruiter of the posting's company may confirm a referral for it"
APPLY_RULE = "a candidate may apply only for themself"
ADVANCE_RULE = "only a recruiter of the posting's company may advance its applications"
WITHDRAW_RULE = "only the candidate who applied may withdraw the application"
SCHEDULE_RULE = "only a recruiter of the posting's company may schedule interviews for its applications"
MOVE_INTERVIEW_RULE = ("only the candidate of the application or a recruiter of the posting's company may "
                       "reschedule or cancel its interviews")
FEEDBACK_RULE = "only a recruiter of the posting's company may record interview feedback"
EXTEND_RULE = "only a recruiter of the posting's company may extend or revise its offers"
RESPOND_RULE = "only the candidate the offer was made to may counter, accept or decline it"
CREATE_REMINDER_RULE = "a candidate may create reminders only for themself"
COMPLETE_REMINDER_RULE = "only the candidate who owns the reminder may complete it"
PROFILE_READ_RULE = "a candidate sees only their own profile and resumes; a recruiter may see any candidate's"
MATCH_RULE = "a candidate may match jobs only for themself"
REMINDERS_READ_RULE = "a candidate sees only their own reminders"
RECORDS_READ_RULE = ("a candidate sees only their own records; a recruiter sees only those of their own "
                     "company's postings")

CANDIDATE_SQL = (
    "SELECT candidate_id, full_name, date_of_birth, email, phone, city, headline, years_experience, desired_salary, status, "
    "joined_on FROM candidates WHERE candidate_id = ?"
)
JOB_SQL = (
    "SELECT j.job_id, j.company_id, c.name AS company_name, c.hiring_status, j.recruiter_id, "
    "r.full_name AS recruiter_name, r.email AS recruiter_email, j.title, j.department, j.location, "
    "j.work_mode, j.employment_type, j.seniority, j.salary_min, j.salary_max, j.openings, j.status, j.posted_on, "
    "j.closes_on FROM job_postings j JOIN companies c ON c.company_id = j.company_id "
    "JOIN recruiters r ON r.recruiter_id = j.recruiter_id WHERE j.job_id = ?"
)
APPLICATION_SQL = (
    "SELECT application_id, candidate_id, job_id, resume_id, referral_id, source, stage, applied_on, updated_on, "
    "cover_note, closed_reason FROM applications WHERE application_id = ?"
)
INTERVIEW_SQL = (
    "SELECT i.interview_id, i.application_id, a.candidate_id, a.job_id, i.round, i.interview_type, "
    "i.interviewer_name, i.scheduled_at, i.duration_minutes, i.status, i.reschedule_count, i.rating, "
    "i.recommendation, i.feedback FROM interviews i JOIN applications a ON a.application_id = i.application_id "
    "WHERE i.interview_id = ?"
)
OFFER_SQL = (
    "SELECT o.offer_id, o.application_id, a.candidate_id, a.job_id, o.base_salary, o.bonus, o.start_date, o.status, "
    "o.extended_on, o.expires_on, o.negotiation_round, o.counter_salary, o.responded_on, o.decline_reason "
    "FROM offers o JOIN applications a ON a.application_id = o.application_id WHERE o.offer_id = ?"
)


# -- helpers (not tools) -------------------------------------------------------------------------

def _acting_candidate(ctx, acting_candidate_id: str) -> str:
    """The acting candidate's id; not_found names the argument."""
    require_row(ctx, "SELECT candidate_id FROM candidates WHERE candidate_id = ?", (acting_candidate_id,),
                f"acting_candidate_id {acting_candidate_id}: no such candidate")
    return acting_candidate_id


def _acting_recruiter(ctx, acting_recruiter_id: str) -> dict:
    """The acting recruiter (recruiter_id, company_id); not_found names the argument."""
    return require_row(ctx, "SELECT recruiter_id, company_id FROM recruiters WHERE recruiter_id = ?",
                       (acting_recruiter_id,), f"acting_recruiter_id {acting_recruiter_id}: no such recruiter")


def _acting_user(ctx, acting_user_id: str) -> dict:
    """The acting candidate or recruiter as {"kind", "id", "company_id"}; not_found names the argument."""
    missing = f"acting_user_id {acting_user_id}: no such candidate or recruiter"
    if acting_user_id.startswith("RCT-"):
        row = require_row(ctx, "SELECT recruiter_id, company_id FROM recruiters WHERE recruiter_id = ?",
                          (acting_user_id,), missing)
        return {"kind": "recruiter", "id": acting_user_id, "company_id": row["company_id"]}
    require_row(ctx, "SELECT candidate_id FROM candidates WHERE candidate_id = ?", (acting_user_id,), missing)
    return {"kind": "candidate", "id": acting_user_id, "company_id": None}


def _may_see(actor: dict, candidate_id: str, company_id: str) -> bool:
    """A candidate sees her own records; a recruiter those of her company's postings."""
    if actor["kind"] == "recruiter":
        return actor["company_id"] == company_id
    return actor["id"] == candidate_id


def _scope(actor: dict, candidate_id: str | None, company_id: str | None) -> tuple:
    """Filters of a search for the actor: (candidate_id, company_id) after RECORDS_READ_RULE."""
    if actor["kind"] == "recruiter":
        require_permission(company_id is None or company_id == actor["company_id"], RECORDS_READ_RULE)
        return candidate_id, actor["company_id"]
    require_permission(candidate_id is None or candidate_id == actor["id"], RECORDS_READ_RULE)
    return actor["id"], company_id


def _candidate(ctx, candidate_id: str) -> dict:
    return require_row(ctx, CANDIDATE_SQL, (candidate_id,), f"no candidate {candidate_id}")


def _job(ctx, job_id: str) -> dict:
    return require_row(ctx, JOB_SQL, (job_id,), f"no job posting {job_id}")


def _application(ctx, application_id: str) -> dict:
    return require_row(ctx, APPLICATION_SQL, (application_id,), f"no application {application_id}")


def _interview(ctx, interview_id: str) -> dict:
    return require_row(ctx, INTERVIEW_SQL, (interview_id,), f"no interview {interview_id}")


def _offer(ctx, offer_id: str) -> dict:
    return require_row(ctx, OFFER_SQL, (offer_id,), f"no offer {offer_id}")


def _accepting(ctx, job: dict) -> None:
    """Conflict unless the posting takes applications today."""
    if job["status"] != "open" or job["closes_on"] < ctx.today or job["hiring_status"] != "hiring":
        raise ConflictError(
            f"job {job['job_id']} is not accepting applications (status {job['status']}, closes {job['closes_on']}, "
            f"company {job['hiring_status']})")


def _slot(ctx, scheduled_at: str, duration_minutes: int) -> tuple:
    """Check an interview slot: a future weekday start, inside 08:00-18:00. Returns (start, end)."""
    try:
        if len(scheduled_at) != 19:
            raise ValueError(scheduled_at)
        start = datetime.fromisoformat(scheduled_at)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"scheduled_at must be YYYY-MM-DDTHH:MM:SS; got {scheduled_at!r}") from None
    if start <= datetime.fromisoformat(ctx.now):
        raise InvalidArgumentError(f"scheduled_at {scheduled_at} is not in the future (now is {ctx.now})")
    end = start + timedelta(minutes=duration_minutes)
    day_end = datetime(start.year, start.month, start.day, WORKDAY_END_HOUR, 0, 0)
    if start.weekday() >= 5 or start.hour < WORKDAY_START_HOUR or end > day_end:
        raise InvalidArgumentError("interviews take place on weekdays between 08:00 and 18:00 (the end included)")
    return start, end


def _clash(ctx, candidate_id: str, start: datetime, end: datetime, skip_interview_id: str) -> None:
    """Conflict when the candidate has another scheduled interview overlapping [start, end)."""
    rows = ctx.db.fetch_all(
        "SELECT i.interview_id, i.scheduled_at, i.duration_minutes FROM interviews i "
        "JOIN applications a ON a.application_id = i.application_id "
        "WHERE a.candidate_id = ? AND i.status = 'scheduled' AND i.interview_id <> ?",
        (candidate_id, skip_interview_id))
    for row in rows:
        other_start = datetime.fromisoformat(row["scheduled_at"])
        other_end = other_start + timedelta(minutes=row["duration_minutes"])
        if other_start < end and start < other_end:
            raise ConflictError(f"the candidate already has interview {row['interview_id']} at {row['scheduled_at']}")


def _close_application(ctx, application_id: str, stage: str, reason: str, offer_reason: str) -> dict:
    """Close an application: cancel its scheduled interviews and decline its open offers."""
    cancelled = [r["interview_id"] for r in ctx.db.fetch_all(
        "SELECT interview_id FROM interviews WHERE application_id = ? AND status = 'scheduled' ORDER BY interview_id",
        (application_id,))]
    declined = [r["offer_id"] for r in ctx.db.fetch_all(
        "SELECT offer_id FROM offers WHERE application_id = ? AND status IN ('extended', 'countered') "
        "ORDER BY offer_id", (application_id,))]
    ctx.db.execute("UPDATE interviews SET status = 'cancelled' WHERE application_id = ? AND status = 'scheduled'",
                   (application_id,))
    ctx.db.execute(
        "UPDATE offers SET status = 'declined', responded_on = ?, decline_reason = ? "
        "WHERE application_id = ? AND status IN ('extended', 'countered')", (ctx.today, offer_reason, application_id))
    ctx.db.execute("UPDATE applications SET stage = ?, closed_reason = ?, updated_on = ? WHERE application_id = ?",
                   (stage, reason, ctx.today, application_id))
    return {"application_id": application_id, "stage": stage, "cancelled_interview_ids": cancelled,
            "declined_offer_ids": declined}


def _text(value: str, name: str) -> str:
    if not value or not value.strip():
        raise InvalidArgumentError(f"{name} must not be blank")
    return value.strip()


# -- identification ------------------------------------------------------------------------------

def identify_candidate(ctx, email: str | None = None, full_name: str | None = None,
                       date_of_birth: str | None = None, phone: str | None = None) -> dict:
    if email is None and full_name is None and phone is None:
        raise InvalidArgumentError("give the candidate's email, phone number, or full name and date of birth")
    born = optional_date(date_of_birth, "date_of_birth")
    digits = None
    if phone is not None:
        digits = sub(r"[^0-9]", "", phone)
        digits = "1" + digits if len(digits) == 10 else digits
    rows = ctx.db.fetch_all(
        "SELECT candidate_id, full_name, email, city, status FROM candidates "
        "WHERE (? IS NULL OR lower(email) = lower(trim(?))) AND (? IS NULL OR lower(full_name) = lower(trim(?))) "
        "AND (? IS NULL OR date_of_birth = ?) "
        "AND (? IS NULL OR replace(replace(phone, '+', ''), '-', '') = ?) ORDER BY candidate_id",
        (email, email, full_name, full_name, born, born, digits, digits))
    if not rows:
        raise NotFoundError("no candidate matches the details given; check the spelling or ask for another detail")
    if len(rows) > 1:
        raise InvalidArgumentError(f"{len(rows)} candidates are named {rows[0]['full_name']}; ask for the date of "
                                   "birth (or the email) to tell them apart")
    return rows[0]


def identify_recruiter(ctx, email: str) -> dict:
    return require_row(
        ctx, "SELECT r.recruiter_id, r.full_name, r.email, r.job_title, r.company_id, c.name AS company_name "
        "FROM recruiters r JOIN companies c ON c.company_id = r.company_id WHERE lower(r.email) = lower(trim(?))",
        (email,), f"no recruiter has the email {email}; ask for the work email the company gave them")


# -- candidates ----------------------------------------------------------------------------------

def find_candidates(ctx, acting_recruiter_id: str, name: str | None = None, city: str | None = None, skill: str | None = None,
                    status: str | None = None, limit: int = 20, offset: int = 0) -> dict:
    _acting_recruiter(ctx, acting_recruiter_id)
    optional_choice(status, ("active", "paused", "hired"), "status")
    rows = ctx.db.fetch_all(
        "SELECT c.candidate_id, c.full_name, c.email, c.city, c.headline, c.years_experience, c.status "
        "FROM candidates c WHERE (? IS NULL OR c.full_name LIKE '%' || ? || '%') "
        "AND (? IS NULL OR lower(c.city) = lower(?)) AND (? IS NULL OR c.status = ?) "
        "AND (? IS NULL OR EXISTS (SELECT 1 FROM candidate_skills s WHERE s.candidate_id = c.candidate_id "
        "AND lower(s.skill_name) = lower(?))) ORDER BY c.candidate_id",
        (name, name, city, city, status, status, skill, skill))
    return paginate(rows, limit, offset)


def get_candidate(ctx, acting_user_id: str, candidate_id: str) -> dict:
    actor = _acting_user(ctx, acting_user_id)
    candidate = _candidate(ctx, candidate_id)
    require_permission(actor["kind"] == "recruiter" or actor["id"] == candidate_id, PROFILE_READ_RULE)
    candidate["skills"] = ctx.db.fetch_all(
        "SELECT candidate_skill_id, skill_name, level, years FROM candidate_skills WHERE candidate_id = ? "
        "ORDER BY candidate_skill_id", (candidate_id,))
    candidate["resumes"] = ctx.db.fetch_all(
        "SELECT resume_id, title, version, status FROM resumes WHERE candidate_id = ? ORDER BY resume_id",
        (candidate_id,))
    candidate["open_applications"] = ctx.db.fetch_one(
        "SELECT count(*) AS n FROM applications WHERE candidate_id = ? "
        "AND stage IN ('applied', 'screening', 'interview', 'offer')", (candidate_id,))["n"]
    return candidate


def update_candidate_profile(ctx, acting_candidate_id: str, candidate_id: str, headline: str | None = None, city: str | None = None,
                             desired_salary: int | None = None, status: str | None = None) -> dict:
    _acting_candidate(ctx, acting_candidate_id)
    candidate = _candidate(ctx, candidate_id)
    require_permission(acting_candidate_id == candidate_id, PROFILE_RULE)
    if headline is None and city is None and desired_salary is None and status is None:
        raise InvalidArgumentError("give at least one of headline, city, desired_salary, status")
    if headline is not None:
        headline = _text(headline, "headline")
    if city is not None:
        city = _text(city, "city")
    if desired_salary is not None and desired_salary <= 0:
        raise InvalidArgumentError("desired_salary must be a positive number of US dollars per year")
    if status is not None:
        require_choice(status, ("active", "paused"), "status")
        if candidate["status"] == "hired":
            raise ConflictError(f"candidate {candidate_id} is hired; the status of a hired candidate cannot change")
    ctx.db.execute(
        "UPDATE candidates SET headline = coalesce(?, headline), city = coalesce(?, city), "
        "desired_salary = coalesce(?, desired_salary), status = coalesce(?, status) WHERE candidate_id = ?",
        (headline, city, desired_salary, status, candidate_id))
    after = _candidate(ctx, candidate_id)
    return {"candidate_id": candidate_id, "headline": after["headline"], "city": after["city"],
            "desired_salary": after["desired_salary"], "status": after["status"]}


def add_candidate_skill(ctx, acting_candidate_id: str, candidate_id: str, skill_name: str, level: str,
                        years: int) -> dict:
    _acting_candidate(ctx, acting_candidate_id)
    candidate = _candidate(ctx, candidate_id)
    require_permission(acting_candidate_id == candidate_id, SKILL_RULE)
    skill_name = _text(skill_name, "skill_name")
    require_choice(level, SKILL_LEVELS, "level")
    if years < 0 or years > candidate["years_experience"]:
        raise InvalidArgumentError(
            f"years must be between 0 and the candidate's {candidate['years_experience']} years of experience")
    existing = ctx.db.fetch_one(
        "SELECT candidate_skill_id FROM candidate_skills WHERE candidate_id = ? AND lower(skill_name) = lower(?)",
        (candidate_id, skill_name))
    if existing is not None:
        raise ConflictError(f"{skill_name} is already listed as {existing['candidate_skill_id']}")
    skill_id = ctx.new_id("CSK")
    ctx.db.execute(
        "INSERT INTO candidate_skills (candidate_skill_id, candidate_id, skill_name, level, years) "
        "VALUES (?, ?, ?, ?, ?)", (skill_id, candidate_id, skill_name, level, years))
    return {"candidate_skill_id": skill_id, "candidate_id": candidate_id, "skill_name": skill_name, "level": level,
            "years": years}


# -- resumes -------------------------------------------------------------------------------------

def list_resumes(ctx, acting_user_id: str, candidate_id: str, status: str | None = None) -> dict:
    actor = _acting_user(ctx, acting_user_id)
    _candidate(ctx, candidate_id)
    require_permission(actor["kind"] == "recruiter" or actor["id"] == candidate_id, PROFILE_READ_RULE)
    optional_choice(status, ("draft", "final", "archived"), "status")
    rows = ctx.db.fetch_all(
        "SELECT resume_id, candidate_id, title, version, status, updated_on FROM resumes "
        "WHERE candidate_id = ? AND (? IS NULL OR status = ?) ORDER BY version, resume_id",
        (candidate_id, status, status))
    return {"items": rows}


def get_resume(ctx, acting_user_id: str, resume_id: str) -> dict:
    actor = _acting_user(ctx, acting_user_id)
    resume = _resume(ctx, resume_id)
    require_permission(actor["kind"] == "recruiter" or actor["id"] == resume["candidate_id"], PROFILE_READ_RULE)
    return resume


def _resume(ctx, resume_id: str) -> dict:
    resume = ctx.db.fetch_one(
        "SELECT resume_id, candidate_id, title, summary, version, status, updated_on FROM resumes WHERE resume_id = ?",
        (resume_id,))
    if resume is None:
        raise NotFoundError(f"no resume {resume_id}")
    resume["applications"] = ctx.db.fetch_all(
        "SELECT application_id, job_id, stage FROM applications WHERE resume_id = ? ORDER BY application_id",
        (resume_id,))
    return resume


def create_resume(ctx, acting_candidate_id: str, candidate_id: str, title: str, summary: str) -> dict:
    _acting_candidate(ctx, acting_candidate_id)
    _candidate(ctx, candidate_id)
    require_permission(acting_candidate_id == candidate_id, CREATE_RESUME_RULE)
    title = _text(title, "title")
    summary = _text(summary, "summary")
    if len(summary) < MIN_SUMMARY_CHARS:
        raise InvalidArgumentError(f"summary must be at least {MIN_SUMMARY_CHARS} characters")
    counts = ctx.db.fetch_one(
        "SELECT coalesce(max(version), 0) AS top, coalesce(sum(status <> 'archived'), 0) AS active FROM resumes "
        "WHERE candidate_id = ?", (candidate_id,))
    if counts["active"] >= MAX_ACTIVE_RESUMES:
        raise ConflictError(f"candidate already has {MAX_ACTIVE_RESUMES} draft or final resumes; archive one first")
    resume_id = ctx.new_id("RES")
    version = counts["top"] + 1
    ctx.db.execute(
        "INSERT INTO resumes (resume_id, candidate_id, title, summary, version, status, updated_on) "
        "VALUES (?, ?, ?, ?, ?, 'draft', ?)", (resume_id, candidate_id, title, summary, version, ctx.today))
    return {"resume_id": resume_id, "candidate_id": candidate_id, "version": version, "status": "draft"}


def finalize_resume(ctx, acting_candidate_id: str, resume_id: str) -> dict:
    _acting_candidate(ctx, acting_candidate_id)
    resume = _resume(ctx, resume_id)
    require_permission(resume["candidate_id"] == acting_candidate_id, RESUME_RULE)
    if resume["status"] != "draft":
        raise ConflictError(f"resume {resume_id} is {resume['status']}; only drafts can be finalized")
    ctx.db.execute("UPDATE resumes SET status = 'final', updated_on = ? WHERE resume_id = ?", (ctx.today, resume_id))
    return {"resume_id": resume_id, "candidate_id": resume["candidate_id"], "status": "final", "updated_on": ctx.today}


def archive_resume(ctx, acting_candidate_id: str, resume_id: str) -> dict:
    _acting_candidate(ctx, acting_candidate_id)
    resume = _resume(ctx, resume_id)
    require_permission(resume["candidate_id"] == acting_candidate_id, RESUME_RULE)
    if resume["status"] == "archived":
        raise ConflictError(f"resume {resume_id} is already archived")
    active = [a["application_id"] for a in resume["applications"] if a["stage"] in OPEN_STAGES]
    if active:
        raise ConflictError(f"resume {resume_id} is attached to open applications {', '.join(active)}")
    ctx.db.execute("UPDATE resumes SET status = 'archived', updated_on = ? WHERE resume_id = ?",
                   (ctx.today, resume_id))
    return {"resume_id": resume_id, "candidate_id": resume["candidate_id"], "status": "archived"}


# -- companies and jobs --------------------------------------------------------------------------

def find_companies(ctx, name: str | None = None, industry: str | None = None, city: str | None = None,
                   hiring_status: str | None = None) -> dict:
    optional_choice(hiring_status, ("hiring", "freeze"), "hiring_status")
    rows = ctx.db.fetch_all(
        "SELECT c.company_id, c.name, c.industry, c.headquarters_city, c.email_domain, c.size_band, c.hiring_status, "
        "(SELECT count(*) FROM job_postings j WHERE j.company_id = c.company_id AND j.status = 'open') AS open_jobs "
        "FROM companies c WHERE (? IS NULL OR c.name LIKE '%' || ? || '%') "
        "AND (? IS NULL OR c.industry LIKE '%' || ? || '%') AND (? IS NULL OR lower(c.headquarters_city) = lower(?)) "
        "AND (? IS NULL OR c.hiring_status = ?) ORDER BY c.company_id",
        (name, name, industry, industry, city, city, hiring_status, hiring_status))
    return {"items": rows}


def get_company(ctx, company_id: str) -> dict:
    company = ctx.db.fetch_one(
        "SELECT company_id, name, industry, headquarters_city, email_domain, size_band, hiring_status "
        "FROM companies WHERE company_id = ?", (company_id,))
    if company is None:
        raise NotFoundError(f"no company {company_id}")
    company["jobs"] = ctx.db.fetch_all(
        "SELECT job_id, title, seniority, work_mode, status, closes_on FROM job_postings WHERE company_id = ? "
        "ORDER BY job_id", (company_id,))
    return company


def search_jobs(ctx, text: str | None = None, company_id: str | None = None, location: str | None = None,
                work_mode: str | None = None, seniority: str | None = None, status: str = "open",
                min_salary: int | None = None, skill: str | None = None, posted_after: str | None = None,
                limit: int = 20, offset: int = 0) -> dict:
    require_choice(status, JOB_STATUSES, "status")
    optional_choice(work_mode, ("onsite", "hybrid", "remote"), "work_mode")
    optional_choice(seniority, ("junior", "mid", "senior", "lead"), "seniority")
    optional_date(posted_after, "posted_after")
    wanted = None if status == "any" else status
    rows = ctx.db.fetch_all(
        "SELECT j.job_id, j.company_id, c.name AS company_name, j.title, j.location, j.work_mode, j.seniority, "
        "j.salary_min, j.salary_max, j.status, j.posted_on, j.closes_on FROM job_postings j "
        "JOIN companies c ON c.company_id = j.company_id "
        "WHERE (? IS NULL OR j.title LIKE '%' || ? || '%' OR j.department LIKE '%' || ? || '%') "
        "AND (? IS NULL OR j.company_id = ?) AND (? IS NULL OR j.location LIKE '%' || ? || '%') "
        "AND (? IS NULL OR j.work_mode = ?) AND (? IS NULL OR j.seniority = ?) AND (? IS NULL OR j.status = ?) "
        "AND (? IS NULL OR j.salary_max >= ?) AND (? IS NULL OR j.posted_on >= ?) "
        "AND (? IS NULL OR EXISTS (SELECT 1 FROM job_skills s WHERE s.job_id = j.job_id "
        "AND lower(s.skill_name) = lower(?))) ORDER BY j.posted_on DESC, j.job_id",
        (text, text, text, company_id, company_id, location, location, work_mode, work_mode, seniority, seniority,
         wanted, wanted, min_salary, min_salary, posted_after, posted_after, skill, skill))
    return paginate(rows, limit, offset)


def get_job(ctx, job_id: str) -> dict:
    job = _job(ctx, job_id)
    skills = ctx.db.fetch_all(
        "SELECT skill_name, importance FROM job_skills WHERE job_id = ? ORDER BY job_skill_id", (job_id,))
    job["required_skills"] = [s["skill_name"] for s in skills if s["importance"] == "required"]
    job["preferred_skills"] = [s["skill_name"] for s in skills if s["importance"] == "preferred"]
    job["accepting_applications"] = (job["status"] == "open" and job["closes_on"] >= ctx.today
                                     and job["hiring_status"] == "hiring")
    return job


def match_jobs_for_candidate(ctx, acting_candidate_id: str, candidate_id: str, limit: int = 10) -> dict:
    _acting_candidate(ctx, acting_candidate_id)
    candidate = _candidate(ctx, candidate_id)
    require_permission(acting_candidate_id == candidate_id, MATCH_RULE)
    require_page(limit, 0, 50)
    have = {r["skill"] for r in ctx.db.fetch_all(
        "SELECT lower(skill_name) AS skill FROM candidate_skills WHERE candidate_id = ?", (candidate_id,))}
    jobs = ctx.db.fetch_all(
        "SELECT j.job_id, j.company_id, c.name AS company_name, j.title, j.salary_max FROM job_postings j "
        "JOIN companies c ON c.company_id = j.company_id WHERE j.status = 'open' AND j.closes_on >= ? "
        "AND c.hiring_status = 'hiring' AND NOT EXISTS (SELECT 1 FROM applications a WHERE a.job_id = j.job_id "
        "AND a.candidate_id = ?) ORDER BY j.job_id", (ctx.today, candidate_id))
    skills = ctx.db.fetch_all(
        "SELECT job_id, skill_name, importance FROM job_skills ORDER BY job_skill_id", ())
    matches = []
    for job in jobs:
        required = [s["skill_name"] for s in skills if s["job_id"] == job["job_id"] and s["importance"] == "required"]
        preferred = [s["skill_name"] for s in skills if s["job_id"] == job["job_id"] and s["importance"] != "required"]
        matched = [s for s in required if s.lower() in have]
        if not matched:
            continue
        job["matched_required"] = len(matched)
        job["missing_required"] = [s for s in required if s.lower() not in have]
        job["matched_preferred"] = len([s for s in preferred if s.lower() in have])
        job["meets_desired_salary"] = job["salary_max"] >= candidate["desired_salary"]
        matches.append(job)
    matches.sort(key=lambda m: (len(m["missing_required"]), -m["matched_required"], -m["matched_preferred"],
                                m["job_id"]))
    return {"candidate_id": candidate_id, "items": matches[:limit]}


# -- referrals -----------------------------------------------------------------------------------

def list_referrals(ctx, acting_user_id: str, candidate_id: str | None = None, job_id: str | None = None,
                   status: str | None = None) -> dict:
    actor = _acting_user(ctx, acting_user_id)
    candidate_id, company_id = _scope(actor, candidate_id, None)
    optional_choice(status, ("requested", "submitted", "used", "expired"), "status")
    rows = ctx.db.fetch_all(
        "SELECT r.referral_id, r.candidate_id, r.job_id, j.title AS job_title, j.company_id, r.referrer_name, "
        "r.referrer_email, r.relationship, r.status, r.requested_on, r.submitted_on FROM referrals r "
        "JOIN job_postings j ON j.job_id = r.job_id WHERE (? IS NULL OR r.candidate_id = ?) "
        "AND (? IS NULL OR r.job_id = ?) AND (? IS NULL OR r.status = ?) AND (? IS NULL OR j.company_id = ?) "
        "ORDER BY r.referral_id", (candidate_id, candidate_id, job_id, job_id, status, status, company_id, company_id))
    return {"items": rows}


def request_referral(ctx, acting_candidate_id: str, candidate_id: str, job_id: str, referrer_name: str,
                     referrer_email: str, relationship: str) -> dict:
    _acting_candidate(ctx, acting_candidate_id)
    candidate = _candidate(ctx, candidate_id)
    require_permission(acting_candidate_id == candidate_id, REQUEST_REFERRAL_RULE)
    job = _job(ctx, job_id)
    referrer_name = _text(referrer_name, "referrer_name")
    require_choice(relationship, RELATIONSHIPS, "relationship")
    if candidate["status"] != "active":
        raise NotPermittedError(f"candidate {candidate_id} is {candidate['status']}; only active candidates job-hunt")
    domain = ctx.db.fetch_one("SELECT email_domain FROM companies WHERE company_id = ?", (job["company_id"],))
    email = referrer_email.strip().lower()
    if not email.endswith("@" + domain["email_domain"]):
        raise NotPermittedError(
            f"the referrer must be an employee of {job['company_name']} with an @{domain['email_domain']} address")
    _accepting(ctx, job)
    taken = ctx.db.fetch_one(
        "SELECT (SELECT referral_id FROM referrals WHERE candidate_id = ? AND job_id = ? "
        "AND status IN ('requested', 'submitted', 'used')) AS referral_id, "
        "(SELECT application_id FROM applications WHERE candidate_id = ? AND job_id = ?) AS application_id",
        (candidate_id, job_id, candidate_id, job_id))
    if taken["referral_id"] is not None or taken["application_id"] is not None:
        raise ConflictError(f"candidate already has referral {taken['referral_id']} or application "
                            f"{taken['application_id']} for job {job_id}")
    referral_id = ctx.new_id("REF")
    ctx.db.execute(
        "INSERT INTO referrals (referral_id, candidate_id, job_id, referrer_name, referrer_email, relationship, status, "
        "requested_on, submitted_on) VALUES (?, ?, ?, ?, ?, ?, 'requested', ?, NULL)",
        (referral_id, candidate_id, job_id, referrer_name, email, relationship, ctx.today))
    return {"referral_id": referral_id, "candidate_id": candidate_id, "job_id": job_id, "status": "requested",
            "requested_on": ctx.today}


def confirm_referral(ctx, acting_recruiter_id: str, referral_id: str) -> dict:
    recruiter = _acting_recruiter(ctx, acting_recruiter_id)
    referral = ctx.db.fetch_one(
        "SELECT r.referral_id, r.candidate_id, r.job_id, r.status, r.requested_on, j.company_id FROM referrals r "
        "JOIN job_postings j ON j.job_id = r.job_id WHERE r.referral_id = ?", (referral_id,))
    if referral is None:
        raise NotFoundError(f"no referral {referral_id}")
    require_permission(referral["company_id"] == recruiter["company_id"], CONFIRM_REFERRAL_RULE)
    if referral["status"] != "requested":
        raise ConflictError(f"referral {referral_id} is {referral['status']}; only requested referrals can be confirmed")
    age = (date.fromisoformat(ctx.today) - date.fromisoformat(referral["requested_on"])).days
    if age > REFERRAL_VALID_DAYS:
        raise ConflictError(f"referral {referral_id} was requested {age} days ago; requests lapse after "
                            f"{REFERRAL_VALID_DAYS} days")
    ctx.db.execute("UPDATE referrals SET status = 'submitted', submitted_on = ? WHERE referral_id = ?",
                   (ctx.today, referral_id))
    return {"referral_id": referral_id, "candidate_id": referral["candidate_id"], "job_id": referral["job_id"],
            "status": "submitted", "submitted_on": ctx.today}


# -- applications --------------------------------------------------------------------------------

def apply_to_job(ctx, acting_candidate_id: str, candidate_id: str, job_id: str, resume_id: str,
                 referral_id: str | None = None, cover_note: str | None = None) -> dict:
    _acting_candidate(ctx, acting_candidate_id)
    candidate = _candidate(ctx, candidate_id)
    require_permission(acting_candidate_id == candidate_id, APPLY_RULE)
    job = _job(ctx, job_id)
    resume = ctx.db.fetch_one("SELECT candidate_id, status FROM resumes WHERE resume_id = ?", (resume_id,))
    if resume is None:
        raise NotFoundError(f"no resume {resume_id}")
    if candidate["status"] != "active":
        raise NotPermittedError(f"candidate {candidate_id} is {candidate['status']}; only active candidates can apply")
    if resume["candidate_id"] != candidate_id or resume["status"] != "final":
        raise InvalidArgumentError(f"resume {resume_id} must be a final resume of candidate {candidate_id}")
    _accepting(ctx, job)
    earlier = ctx.db.fetch_one("SELECT application_id FROM applications WHERE candidate_id = ? AND job_id = ?",
                               (candidate_id, job_id))
    if earlier is not None:
        raise ConflictError(f"candidate already applied to {job_id} ({earlier['application_id']})")
    source = "direct"
    if referral_id is not None:
        referral = ctx.db.fetch_one("SELECT candidate_id, job_id, status FROM referrals WHERE referral_id = ?",
                                    (referral_id,))
        if referral is None:
            raise NotFoundError(f"no referral {referral_id}")
        if referral["candidate_id"] != candidate_id or referral["job_id"] != job_id:
            raise InvalidArgumentError(f"referral {referral_id} is for another candidate or job")
        if referral["status"] != "submitted":
            raise ConflictError(f"referral {referral_id} is {referral['status']}; only submitted referrals can be used")
        ctx.db.execute("UPDATE referrals SET status = 'used' WHERE referral_id = ?", (referral_id,))
        source = "referral"
    application_id = ctx.new_id("APP")
    ctx.db.execute(
        "INSERT INTO applications (application_id, candidate_id, job_id, resume_id, referral_id, source, stage, "
        "applied_on, updated_on, cover_note, closed_reason) VALUES (?, ?, ?, ?, ?, ?, 'applied', ?, ?, ?, NULL)",
        (application_id, candidate_id, job_id, resume_id, referral_id, source, ctx.today, ctx.today, cover_note))
    return {"application_id": application_id, "candidate_id": candidate_id, "job_id": job_id, "stage": "applied",
            "source": source, "referral_id": referral_id, "applied_on": ctx.today}


def find_applications(ctx, acting_user_id: str, candidate_id: str | None = None, job_id: str | None = None,
                      company_id: str | None = None, stage: str | None = None, applied_from: str | None = None,
                      applied_to: str | None = None, limit: int = 20, offset: int = 0) -> dict:
    actor = _acting_user(ctx, acting_user_id)
    candidate_id, company_id = _scope(actor, candidate_id, company_id)
    optional_choice(stage, OPEN_STAGES + CLOSED_STAGES, "stage")
    applied_from = optional_date(applied_from, "applied_from")
    applied_to = optional_date(applied_to, "applied_to")
    rows = ctx.db.fetch_all(
        "SELECT a.application_id, a.candidate_id, c.full_name AS candidate_name, a.job_id, j.title AS job_title, "
        "j.company_id, co.name AS company_name, a.stage, a.source, a.applied_on, a.updated_on FROM applications a "
        "JOIN candidates c ON c.candidate_id = a.candidate_id JOIN job_postings j ON j.job_id = a.job_id "
        "JOIN companies co ON co.company_id = j.company_id WHERE (? IS NULL OR a.candidate_id = ?) "
        "AND (? IS NULL OR a.job_id = ?) AND (? IS NULL OR j.company_id = ?) AND (? IS NULL OR a.stage = ?) "
        "AND (? IS NULL OR a.applied_on >= ?) AND (? IS NULL OR a.applied_on <= ?) "
        "ORDER BY a.applied_on DESC, a.application_id",
        (candidate_id, candidate_id, job_id, job_id, company_id, company_id, stage, stage, applied_from, applied_from,
         applied_to, applied_to))
    return paginate(rows, limit, offset)


def get_application(ctx, acting_user_id: str, application_id: str) -> dict:
    actor = _acting_user(ctx, acting_user_id)
    app = _application(ctx, application_id)
    job = _job(ctx, app["job_id"])
    require_permission(_may_see(actor, app["candidate_id"], job["company_id"]), RECORDS_READ_RULE)
    app["job_title"] = job["title"]
    app["company_id"] = job["company_id"]
    app["company_name"] = job["company_name"]
    app["interviews"] = ctx.db.fetch_all(
        "SELECT interview_id, round, interview_type, interviewer_name, scheduled_at, duration_minutes, status, rating, "
        "recommendation FROM interviews WHERE application_id = ? ORDER BY round, interview_id", (application_id,))
    app["offers"] = ctx.db.fetch_all(
        "SELECT offer_id, base_salary, bonus, status, expires_on, negotiation_round, counter_salary FROM offers "
        "WHERE application_id = ? ORDER BY offer_id", (application_id,))
    return app


def advance_application(ctx, acting_recruiter_id: str, application_id: str, stage: str) -> dict:
    recruiter = _acting_recruiter(ctx, acting_recruiter_id)
    app = _application(ctx, application_id)
    require_permission(_job(ctx, app["job_id"])["company_id"] == recruiter["company_id"], ADVANCE_RULE)
    require_choice(stage, ("screening", "interview"), "stage")
    if (app["stage"], stage) not in NEXT_STAGE:
        raise ConflictError(f"application {application_id} is at {app['stage']}; it can move only applied -> "
                            f"screening -> interview one step at a time")
    ctx.db.execute("UPDATE applications SET stage = ?, updated_on = ? WHERE application_id = ?",
                   (stage, ctx.today, application_id))
    return {"application_id": application_id, "previous_stage": app["stage"], "stage": stage,
            "updated_on": ctx.today}


def withdraw_application(ctx, acting_candidate_id: str, application_id: str, reason: str) -> dict:
    _acting_candidate(ctx, acting_candidate_id)
    app = _application(ctx, application_id)
    require_permission(app["candidate_id"] == acting_candidate_id, WITHDRAW_RULE)
    reason = _text(reason, "reason")
    if app["stage"] in CLOSED_STAGES:
        raise ConflictError(f"application {application_id} is already {app['stage']}")
    return _close_application(ctx, application_id, "withdrawn", reason, "Candidate withdrew: " + reason)


# -- interviews ----------------------------------------------------------------------------------

def list_interviews(ctx, acting_user_id: str, candidate_id: str | None = None, application_id: str | None = None,
                    status: str | None = None, from_date: str | None = None, to_date: str | None = None,
                    limit: int = 20, offset: int = 0) -> dict:
    actor = _acting_user(ctx, acting_user_id)
    candidate_id, company_id = _scope(actor, candidate_id, None)
    optional_choice(status, ("scheduled", "completed", "cancelled", "no_show"), "status")
    from_date = optional_date(from_date, "from_date")
    to_date = optional_date(to_date, "to_date")
    rows = ctx.db.fetch_all(
        "SELECT i.interview_id, i.application_id, a.candidate_id, a.job_id, j.title AS job_title, "
        "co.name AS company_name, i.round, i.interview_type, i.interviewer_name, i.scheduled_at, i.duration_minutes, "
        "i.status FROM interviews i JOIN applications a ON a.application_id = i.application_id "
        "JOIN job_postings j ON j.job_id = a.job_id JOIN companies co ON co.company_id = j.company_id "
        "WHERE (? IS NULL OR a.candidate_id = ?) AND (? IS NULL OR i.application_id = ?) "
        "AND (? IS NULL OR i.status = ?) AND (? IS NULL OR substr(i.scheduled_at, 1, 10) >= ?) "
        "AND (? IS NULL OR substr(i.scheduled_at, 1, 10) <= ?) AND (? IS NULL OR j.company_id = ?) "
        "ORDER BY i.scheduled_at, i.interview_id",
        (candidate_id, candidate_id, application_id, application_id, status, status, from_date, from_date,
         to_date, to_date, company_id, company_id))
    return paginate(rows, limit, offset)


def schedule_interview(ctx, acting_recruiter_id: str, application_id: str, interview_type: str,
                       interviewer_name: str, scheduled_at: str, duration_minutes: int) -> dict:
    recruiter = _acting_recruiter(ctx, acting_recruiter_id)
    app = _application(ctx, application_id)
    require_permission(_job(ctx, app["job_id"])["company_id"] == recruiter["company_id"], SCHEDULE_RULE)
    require_choice(interview_type, INTERVIEW_TYPES, "interview_type")
    interviewer_name = _text(interviewer_name, "interviewer_name")
    if duration_minutes < MIN_INTERVIEW_MINUTES or duration_minutes > MAX_INTERVIEW_MINUTES:
        raise InvalidArgumentError(f"duration_minutes must be {MIN_INTERVIEW_MINUTES}-{MAX_INTERVIEW_MINUTES}")
    if app["stage"] not in ("screening", "interview"):
        raise ConflictError(f"application {application_id} is at {app['stage']}; interviews need the screening or "
                            "interview stage")
    start, end = _slot(ctx, scheduled_at, duration_minutes)
    _clash(ctx, app["candidate_id"], start, end, "")
    rounds = ctx.db.fetch_one("SELECT coalesce(max(round), 0) AS n FROM interviews WHERE application_id = ?",
                              (application_id,))["n"]
    interview_id = ctx.new_id("IVW")
    ctx.db.execute(
        "INSERT INTO interviews (interview_id, application_id, round, interview_type, interviewer_name, scheduled_at, "
        "duration_minutes, status, reschedule_count, rating, recommendation, feedback) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, 'scheduled', 0, NULL, NULL, NULL)",
        (interview_id, application_id, rounds + 1, interview_type, interviewer_name, scheduled_at, duration_minutes))
    ctx.db.execute("UPDATE applications SET stage = 'interview', updated_on = ? WHERE application_id = ?",
                   (ctx.today, application_id))
    return {"interview_id": interview_id, "application_id": application_id, "candidate_id": app["candidate_id"],
            "round": rounds + 1, "scheduled_at": scheduled_at, "ends_at": end.isoformat(), "status": "scheduled",
            "stage": "interview"}


def reschedule_interview(ctx, acting_user_id: str, interview_id: str, scheduled_at: str) -> dict:
    actor = _acting_user(ctx, acting_user_id)
    interview = _interview(ctx, interview_id)
    require_permission(_may_see(actor, interview["candidate_id"], _job(ctx, interview["job_id"])["company_id"]),
                       MOVE_INTERVIEW_RULE)
    if interview["status"] != "scheduled":
        raise ConflictError(f"interview {interview_id} is {interview['status']}; only scheduled interviews move")
    if interview["reschedule_count"] >= MAX_RESCHEDULES:
        raise ConflictError(f"interview {interview_id} was already rescheduled {MAX_RESCHEDULES} times")
    start, end = _slot(ctx, scheduled_at, interview["duration_minutes"])
    _clash(ctx, interview["candidate_id"], start, end, interview_id)
    ctx.db.execute(
        "UPDATE interviews SET scheduled_at = ?, reschedule_count = reschedule_count + 1 WHERE interview_id = ?",
        (scheduled_at, interview_id))
    return {"interview_id": interview_id, "application_id": interview["application_id"],
            "previous_scheduled_at": interview["scheduled_at"], "scheduled_at": scheduled_at,
            "ends_at": end.isoformat(), "reschedule_count": interview["reschedule_count"] + 1}


def cancel_interview(ctx, acting_user_id: str, interview_id: str) -> dict:
    actor = _acting_user(ctx, acting_user_id)
    interview = _interview(ctx, interview_id)
    require_permission(_may_see(actor, interview["candidate_id"], _job(ctx, interview["job_id"])["company_id"]),
                       MOVE_INTERVIEW_RULE)
    if interview["status"] != "scheduled":
        raise ConflictError(f"interview {interview_id} is {interview['status']}; only scheduled interviews cancel")
    if interview["scheduled_at"] <= ctx.now:
        raise ConflictError(f"interview {interview_id} already started at {interview['scheduled_at']}; "
                            "record feedback instead")
    ctx.db.execute("UPDATE interviews SET status = 'cancelled' WHERE interview_id = ?", (interview_id,))
    return {"interview_id": interview_id, "application_id": interview["application_id"], "status": "cancelled"}


def record_interview_feedback(ctx, acting_recruiter_id: str, interview_id: str, rating: int, recommendation: str,
                              feedback: str) -> dict:
    recruiter = _acting_recruiter(ctx, acting_recruiter_id)
    interview = _interview(ctx, interview_id)
    require_permission(_job(ctx, interview["job_id"])["company_id"] == recruiter["company_id"], FEEDBACK_RULE)
    if rating < 1 or rating > 5:
        raise InvalidArgumentError("rating must be an integer from 1 to 5")
    require_choice(recommendation, RECOMMENDATIONS, "recommendation")
    feedback = _text(feedback, "feedback")
    if interview["status"] != "scheduled":
        raise ConflictError(f"interview {interview_id} is {interview['status']}; feedback goes on scheduled interviews")
    if interview["scheduled_at"] > ctx.now:
        raise ConflictError(f"interview {interview_id} has not taken place yet ({interview['scheduled_at']})")
    ctx.db.execute(
        "UPDATE interviews SET status = 'completed', rating = ?, recommendation = ?, feedback = ? "
        "WHERE interview_id = ?", (rating, recommendation, feedback, interview_id))
    return {"interview_id": interview_id, "application_id": interview["application_id"],
            "candidate_id": interview["candidate_id"], "status": "completed", "rating": rating,
            "recommendation": recommendation}


# -- offers --------------------------------------------------------------------------------------

def list_offers(ctx, acting_user_id: str, candidate_id: str | None = None, application_id: str | None = None,
                status: str | None = None) -> dict:
    actor = _acting_user(ctx, acting_user_id)
    candidate_id, company_id = _scope(actor, candidate_id, None)
    optional_choice(status, ("extended", "countered", "accepted", "declined", "rescinded", "expired"), "status")
    rows = ctx.db.fetch_all(
        "SELECT o.offer_id, o.application_id, a.candidate_id, a.job_id, j.title AS job_title, co.name AS company_name, "
        "o.base_salary, o.bonus, o.start_date, o.status, o.extended_on, o.expires_on, o.negotiation_round, "
        "o.counter_salary FROM offers o JOIN applications a ON a.application_id = o.application_id "
        "JOIN job_postings j ON j.job_id = a.job_id JOIN companies co ON co.company_id = j.company_id "
        "WHERE (? IS NULL OR a.candidate_id = ?) AND (? IS NULL OR o.application_id = ?) "
        "AND (? IS NULL OR o.status = ?) AND (? IS NULL OR j.company_id = ?) ORDER BY o.offer_id",
        (candidate_id, candidate_id, application_id, application_id, status, status, company_id, company_id))
    return {"items": rows}


def extend_offer(ctx, acting_recruiter_id: str, application_id: str, base_salary: int, bonus: int, start_date: str,
                 expires_on: str) -> dict:
    recruiter = _acting_recruiter(ctx, acting_recruiter_id)
    app = _application(ctx, application_id)
    job = _job(ctx, app["job_id"])
    require_permission(job["company_id"] == recruiter["company_id"], EXTEND_RULE)
    expires = require_date(expires_on, "expires_on")
    start = require_date(start_date, "start_date")
    today = date.fromisoformat(ctx.today)
    if bonus < 0:
        raise InvalidArgumentError("bonus must be 0 or more US dollars")
    if expires < today + timedelta(days=OFFER_MIN_DAYS) or expires > today + timedelta(days=OFFER_MAX_DAYS):
        raise InvalidArgumentError(f"expires_on must be {OFFER_MIN_DAYS}-{OFFER_MAX_DAYS} days after today")
    if start <= expires:
        raise InvalidArgumentError("start_date must be after expires_on")
    if base_salary < job["salary_min"] or base_salary > job["salary_max"]:
        raise InvalidArgumentError(f"base_salary must be inside the posting's band {job['salary_min']}-"
                                   f"{job['salary_max']}")
    if app["stage"] != "interview":
        raise ConflictError(f"application {application_id} is at {app['stage']}; offers follow the interview stage")
    positive = ctx.db.fetch_one(
        "SELECT count(*) AS n FROM interviews WHERE application_id = ? AND status = 'completed' "
        "AND recommendation IN ('yes', 'strong_yes')", (application_id,))["n"]
    if positive == 0:
        raise ConflictError(f"application {application_id} has no completed interview recommending a hire")
    offer_id = ctx.new_id("OFR")
    ctx.db.execute(
        "INSERT INTO offers (offer_id, application_id, base_salary, bonus, start_date, status, extended_on, "
        "expires_on, negotiation_round, counter_salary, responded_on, decline_reason) "
        "VALUES (?, ?, ?, ?, ?, 'extended', ?, ?, 0, NULL, NULL, NULL)",
        (offer_id, application_id, base_salary, bonus, start_date, ctx.today, expires_on))
    ctx.db.execute("UPDATE applications SET stage = 'offer', updated_on = ? WHERE application_id = ?",
                   (ctx.today, application_id))
    return {"offer_id": offer_id, "application_id": application_id, "candidate_id": app["candidate_id"],
            "status": "extended", "base_salary": base_salary, "bonus": bonus, "expires_on": expires_on,
            "stage": "offer"}


def counter_offer(ctx, acting_candidate_id: str, offer_id: str, requested_salary: int) -> dict:
    _acting_candidate(ctx, acting_candidate_id)
    offer = _offer(ctx, offer_id)
    require_permission(offer["candidate_id"] == acting_candidate_id, RESPOND_RULE)
    if offer["status"] != "extended":
        raise ConflictError(f"offer {offer_id} is {offer['status']}; only an extended offer can be countered")
    if offer["expires_on"] < ctx.today:
        raise ConflictError(f"offer {offer_id} expired on {offer['expires_on']}")
    if offer["negotiation_round"] >= MAX_NEGOTIATION_ROUNDS:
        raise ConflictError(f"offer {offer_id} already went through {MAX_NEGOTIATION_ROUNDS} negotiation rounds")
    ceiling = offer["base_salary"] * (100 + MAX_COUNTER_PERCENT) // 100
    if requested_salary <= offer["base_salary"] or requested_salary > ceiling:
        raise InvalidArgumentError(f"requested_salary must be above {offer['base_salary']} and at most {ceiling} "
                                   f"({MAX_COUNTER_PERCENT}% above the current base)")
    ctx.db.execute(
        "UPDATE offers SET status = 'countered', counter_salary = ?, negotiation_round = negotiation_round + 1 "
        "WHERE offer_id = ?", (requested_salary, offer_id))
    return {"offer_id": offer_id, "application_id": offer["application_id"], "status": "countered",
            "base_salary": offer["base_salary"], "counter_salary": requested_salary,
            "negotiation_round": offer["negotiation_round"] + 1}


def revise_offer(ctx, acting_recruiter_id: str, offer_id: str, base_salary: int, bonus: int | None = None) -> dict:
    recruiter = _acting_recruiter(ctx, acting_recruiter_id)
    offer = _offer(ctx, offer_id)
    job = _job(ctx, offer["job_id"])
    require_permission(job["company_id"] == recruiter["company_id"], EXTEND_RULE)
    if offer["status"] != "countered":
        raise ConflictError(f"offer {offer_id} is {offer['status']}; only a countered offer can be revised")
    if base_salary <= offer["base_salary"] or base_salary > offer["counter_salary"]:
        raise InvalidArgumentError(f"base_salary must be above the current {offer['base_salary']} and at most the "
                                   f"counter of {offer['counter_salary']}")
    if bonus is not None and bonus < 0:
        raise InvalidArgumentError("bonus must be 0 or more US dollars")
    if base_salary > job["salary_max"]:
        raise NotPermittedError(f"base_salary is above the posting's band maximum of {job['salary_max']}")
    new_bonus = offer["bonus"] if bonus is None else bonus
    expires = (date.fromisoformat(ctx.today) + timedelta(days=REVISED_OFFER_DAYS)).isoformat()
    ctx.db.execute(
        "UPDATE offers SET status = 'extended', base_salary = ?, bonus = ?, expires_on = ? WHERE offer_id = ?",
        (base_salary, new_bonus, expires, offer_id))
    return {"offer_id": offer_id, "application_id": offer["application_id"], "status": "extended",
            "base_salary": base_salary, "bonus": new_bonus, "expires_on": expires,
            "negotiation_round": offer["negotiation_round"]}


def accept_offer(ctx, acting_candidate_id: str, offer_id: str) -> dict:
    _acting_candidate(ctx, acting_candidate_id)
    offer = _offer(ctx, offer_id)
    require_permission(offer["candidate_id"] == acting_candidate_id, RESPOND_RULE)
    job = _job(ctx, offer["job_id"])
    candidate = _candidate(ctx, offer["candidate_id"])
    if offer["status"] != "extended":
        raise ConflictError(f"offer {offer_id} is {offer['status']}; only an extended offer can be accepted")
    if offer["expires_on"] < ctx.today:
        raise ConflictError(f"offer {offer_id} expired on {offer['expires_on']}")
    if candidate["status"] == "hired":
        raise ConflictError(f"candidate {candidate['candidate_id']} has already accepted another job")
    if job["openings"] < 1:
        raise ConflictError(f"job {job['job_id']} has no openings left")
    others = ctx.db.fetch_all(
        "SELECT application_id FROM applications WHERE candidate_id = ? AND application_id <> ? "
        "AND stage IN ('applied', 'screening', 'interview', 'offer') ORDER BY application_id",
        (candidate["candidate_id"], offer["application_id"]))
    withdrawn = []
    for other in others:
        _close_application(ctx, other["application_id"], "withdrawn", "Accepted another offer",
                           "Candidate accepted another offer")
        withdrawn.append(other["application_id"])
    ctx.db.execute("UPDATE offers SET status = 'accepted', responded_on = ? WHERE offer_id = ?", (ctx.today, offer_id))
    ctx.db.execute("UPDATE applications SET stage = 'hired', updated_on = ? WHERE application_id = ?",
                   (ctx.today, offer["application_id"]))
    openings = job["openings"] - 1
    job_status = "filled" if openings == 0 else job["status"]
    ctx.db.execute("UPDATE job_postings SET openings = ?, status = ? WHERE job_id = ?",
                   (openings, job_status, job["job_id"]))
    ctx.db.execute("UPDATE candidates SET status = 'hired' WHERE candidate_id = ?", (candidate["candidate_id"],))
    return {"offer_id": offer_id, "application_id": offer["application_id"], "candidate_id": candidate["candidate_id"],
            "job_id": job["job_id"], "status": "accepted", "stage": "hired", "openings_left": openings,
            "job_status": job_status, "withdrawn_application_ids": withdrawn}


def decline_offer(ctx, acting_candidate_id: str, offer_id: str, reason: str) -> dict:
    _acting_candidate(ctx, acting_candidate_id)
    offer = _offer(ctx, offer_id)
    require_permission(offer["candidate_id"] == acting_candidate_id, RESPOND_RULE)
    reason = _text(reason, "reason")
    if offer["status"] not in ("extended", "countered"):
        raise ConflictError(f"offer {offer_id} is {offer['status']}; only an open offer can be declined")
    ctx.db.execute("UPDATE offers SET status = 'declined', responded_on = ?, decline_reason = ? WHERE offer_id = ?",
                   (ctx.today, reason, offer_id))
    ctx.db.execute(
        "UPDATE applications SET stage = 'withdrawn', closed_reason = ?, updated_on = ? WHERE application_id = ?",
        ("Declined offer: " + reason, ctx.today, offer["application_id"]))
    return {"offer_id": offer_id, "application_id": offer["application_id"], "status": "declined",
            "stage": "withdrawn"}


# -- reminders -----------------------------------------------------------------------------------

def list_reminders(ctx, acting_candidate_id: str, candidate_id: str, status: str | None = None,
                   due_before: str | None = None) -> dict:
    _acting_candidate(ctx, acting_candidate_id)
    _candidate(ctx, candidate_id)
    require_permission(acting_candidate_id == candidate_id, REMINDERS_READ_RULE)
    optional_choice(status, ("pending", "done"), "status")
    due_before = optional_date(due_before, "due_before")
    rows = ctx.db.fetch_all(
        "SELECT reminder_id, candidate_id, application_id, due_on, message, status, created_on, completed_on "
        "FROM reminders WHERE candidate_id = ? AND (? IS NULL OR status = ?) AND (? IS NULL OR due_on < ?) "
        "ORDER BY due_on, reminder_id", (candidate_id, status, status, due_before, due_before))
    for row in rows:
        row["overdue"] = row["status"] == "pending" and row["due_on"] < ctx.today
    return {"items": rows}


def create_reminder(ctx, acting_candidate_id: str, candidate_id: str, due_on: str, message: str,
                    application_id: str | None = None) -> dict:
    _acting_candidate(ctx, acting_candidate_id)
    _candidate(ctx, candidate_id)
    require_permission(acting_candidate_id == candidate_id, CREATE_REMINDER_RULE)
    due = require_date(due_on, "due_on")
    message = _text(message, "message")
    today = date.fromisoformat(ctx.today)
    if due < today or due > today + timedelta(days=REMINDER_HORIZON_DAYS):
        raise InvalidArgumentError(f"due_on must be between today and {REMINDER_HORIZON_DAYS} days ahead")
    if application_id is not None:
        app = _application(ctx, application_id)
        if app["candidate_id"] != candidate_id:
            raise NotPermittedError(f"application {application_id} belongs to another candidate")
    same = ctx.db.fetch_one(
        "SELECT reminder_id FROM reminders WHERE candidate_id = ? AND due_on = ? AND status = 'pending' "
        "AND coalesce(application_id, '') = coalesce(?, '') AND lower(message) = lower(?)",
        (candidate_id, due_on, application_id, message))
    if same is not None:
        raise ConflictError(f"the same pending reminder already exists ({same['reminder_id']})")
    reminder_id = ctx.new_id("REM")
    ctx.db.execute(
        "INSERT INTO reminders (reminder_id, candidate_id, application_id, due_on, message, status, created_on, "
        "completed_on) VALUES (?, ?, ?, ?, ?, 'pending', ?, NULL)",
        (reminder_id, candidate_id, application_id, due_on, message, ctx.today))
    return {"reminder_id": reminder_id, "candidate_id": candidate_id, "application_id": application_id,
            "due_on": due_on, "status": "pending"}


def complete_reminder(ctx, acting_candidate_id: str, reminder_id: str) -> dict:
    _acting_candidate(ctx, acting_candidate_id)
    reminder = ctx.db.fetch_one("SELECT reminder_id, candidate_id, status FROM reminders WHERE reminder_id = ?",
                                (reminder_id,))
    if reminder is None:
        raise NotFoundError(f"no reminder {reminder_id}")
    require_permission(reminder["candidate_id"] == acting_candidate_id, COMPLETE_REMINDER_RULE)
    if reminder["status"] == "done":
        raise ConflictError(f"reminder {reminder_id} is already done")
    ctx.db.execute("UPDATE reminders SET status = 'done', completed_on = ? WHERE reminder_id = ?",
                   (ctx.today, reminder_id))
    return {"reminder_id": reminder_id, "candidate_id": reminder["candidate_id"], "status": "done",
            "completed_on": ctx.today}
