"""Tools of the online_learning domain: enrol learners in course runs, take payment and coupons,
run coursework (assignments, grading, quizzes), issue certificates and handle refunds.

Money is USD cents, dates YYYY-MM-DD, timestamps YYYY-MM-DDTHH:MM:SS, grades whole percent.
The agent acts for one identified person at a time: a learner (acting_learner_id) or the
instructor who runs a course (acting_instructor_id); reads that serve either name them in
acting_user_id. Each tool refuses with permission_denied what that person may not do, in the
words of its permission rule in domain.json.
"""

from datetime import date, datetime, timedelta
from re import fullmatch

from scaleenv_mcp.toolkit import (
    ConflictError,
    InvalidArgumentError,
    NotFoundError,
    NotPermittedError,
    optional_date,
    paginate,
    require_choice,
    require_date,
    require_permission,
    require_row,
)

LATE_ENROLMENT_DAYS = 14
REFUND_WINDOW_DAYS = 14
LATE_PENALTY_PERCENT = 10
PAYMENT_METHODS = ("card", "paypal", "bank_transfer")
LESSON_KINDS = ("video", "reading", "lab")
CODE_PATTERN = "^[A-Z0-9][A-Z0-9-]{3,19}$"

# Permission rules: the same words as each tool's `permission` in domain.json.
PROFILE_RULE = "a learner sees only their own profile; an instructor sees only learners enrolled in a run they teach"
ELIGIBILITY_RULE = "a learner may check only their own eligibility"
ENROL_RULE = "a learner may enrol only themself"
ENROLMENTS_RULE = "a learner sees only their own enrolments; an instructor sees only enrolments in runs they teach"
APPLY_RULE = "only the enrolled learner may apply a coupon to the enrolment"
PAY_RULE = "only the enrolled learner may pay for the enrolment"
WITHDRAW_RULE = "only the enrolled learner may withdraw the enrolment"
TRANSFER_RULE = "only the enrolled learner may transfer the enrolment"
REQUEST_REFUND_RULE = "only the enrolled learner may ask for a refund on the enrolment"
DECIDE_REFUND_RULE = "only the instructor of the run may decide a refund on it"
REFUNDS_RULE = "a learner sees only refunds on their own enrolments; an instructor sees only refunds on runs they teach"
COUPON_RULE = "an instructor creates coupons only for a run they teach"
SUBMISSIONS_RULE = "a learner sees only their own submissions; an instructor sees only submissions in runs they teach"
SUBMIT_RULE = "only the enrolled learner may submit work for the enrolment"
GRADE_RULE = "only the instructor of the run may grade or return its submissions"
QUIZ_START_RULE = "only the enrolled learner may take a quiz on the enrolment"
QUIZ_SUBMIT_RULE = "only the learner who started the attempt may submit it"
CLAIM_RULE = "only the enrolled learner may claim the certificate of the enrolment"
CERTIFICATES_RULE = "a learner sees only their own certificates; an instructor sees only certificates of runs they teach"
REVOKE_RULE = "only the instructor of the course run may revoke its certificates"
PUBLISH_RULE = "only the instructor assigned to the run may publish it"
LESSON_RULE = "only the instructor of the run may add lessons to it"
ASSIGN_RULE = "only the run's current instructor may hand it to another instructor"

COURSE_SQL = (
    "SELECT course_id, code, title, category, level, instructor_id, prerequisite_code, price_cents, seat_limit, "
    "seats_taken, start_date, end_date, pass_mark_percent, status FROM courses WHERE course_id = ?"
)
ENROLMENT_SQL = (
    "SELECT e.enrolment_id, e.learner_id, e.course_id, c.code, c.title, e.status, e.enrolled_on, e.list_price_cents, "
    "e.coupon_id, e.discount_cents, e.list_price_cents - e.discount_cents AS amount_due_cents, e.paid_cents, "
    "e.paid_on, e.payment_method, e.refunded_cents, e.completed_on, e.final_grade_percent "
    "FROM enrolments e JOIN courses c ON c.course_id = e.course_id WHERE e.enrolment_id = ?"
)


# -- helpers (not tools) ------------------------------------------------------------------------

def _range(start, end, start_name: str, end_name: str) -> tuple:
    first, last = optional_date(start, start_name), optional_date(end, end_name)
    if first is not None and last is not None and first > last:
        raise InvalidArgumentError(f"{start_name} {first} is after {end_name} {last}")
    return first, last


def _learner(ctx, learner_id: str) -> dict:
    return require_row(
        ctx,
        "SELECT learner_id, full_name, email, country, status, joined_on FROM learners "
        "WHERE learner_id = ?",
        (learner_id,),
        f"no learner {learner_id}",
    )


def _acting_learner(ctx, acting_learner_id: str) -> str:
    """The learner the call acts for; not_found names the argument."""
    require_row(ctx, "SELECT learner_id FROM learners WHERE learner_id = ?", (acting_learner_id,),
                f"acting_learner_id {acting_learner_id}: no such learner")
    return acting_learner_id


def _acting_instructor(ctx, acting_instructor_id: str) -> str:
    """The instructor the call acts for; not_found names the argument."""
    require_row(ctx, "SELECT instructor_id FROM instructors WHERE instructor_id = ?", (acting_instructor_id,),
                f"acting_instructor_id {acting_instructor_id}: no such instructor")
    return acting_instructor_id


def _acting_user(ctx, acting_user_id: str) -> str:
    """'learner' or 'instructor': the kind of person a read serves; not_found names the argument."""
    if acting_user_id.startswith("INS-"):
        row = ctx.db.fetch_one("SELECT instructor_id FROM instructors WHERE instructor_id = ?", (acting_user_id,))
        kind = "instructor"
    else:
        row = ctx.db.fetch_one("SELECT learner_id FROM learners WHERE learner_id = ?", (acting_user_id,))
        kind = "learner"
    if row is None:
        raise NotFoundError(f"acting_user_id {acting_user_id}: no such learner or instructor")
    return kind


def _teaches(ctx, instructor_id: str, course_id: str) -> bool:
    row = ctx.db.fetch_one("SELECT instructor_id FROM courses WHERE course_id = ?", (course_id,))
    return row is not None and row["instructor_id"] == instructor_id


def _may_see_enrolment(ctx, kind: str, who: str, enrolment: dict) -> bool:
    if kind == "learner":
        return enrolment["learner_id"] == who
    return _teaches(ctx, who, enrolment["course_id"])


def _scope(kind: str, who: str) -> tuple:
    """(learner_id, instructor_id) bounds of a search: the person's own rows or their runs' rows."""
    return (who, None) if kind == "learner" else (None, who)


def _course(ctx, course_id: str) -> dict:
    return require_row(ctx, COURSE_SQL, (course_id,), f"no course {course_id}")


def _enrolment(ctx, enrolment_id: str) -> dict:
    return require_row(ctx, ENROLMENT_SQL, (enrolment_id,), f"no enrolment {enrolment_id}")


def _coupon_by_code(ctx, code: str) -> dict:
    return require_row(
        ctx,
        "SELECT coupon_id, code, percent_off, course_id, valid_from, valid_until, max_uses, "
        "times_used, status FROM coupons WHERE code = ?",
        (code.strip().upper(),),
        f"no coupon with code {code!r}",
    )


def _coupon_problem(ctx, coupon: dict, course_id: str):
    if coupon["status"] != "active":
        return f"coupon {coupon['code']} is disabled"
    if not coupon["valid_from"] <= ctx.today <= coupon["valid_until"]:
        return f"coupon {coupon['code']} is valid only {coupon['valid_from']} to {coupon['valid_until']}"
    if coupon["course_id"] is not None and coupon["course_id"] != course_id:
        return f"coupon {coupon['code']} is only for course {coupon['course_id']}"
    if coupon["times_used"] >= coupon["max_uses"]:
        return f"coupon {coupon['code']} has been used {coupon['max_uses']} times and is used up"
    return None


def _enrol_problems(ctx, learner: dict, course: dict) -> list:
    """Every reason why the learner may not enrol in the course run now, as (code, message) pairs."""
    problems = []
    if learner["status"] != "active":
        problems.append(("not_permitted", f"learner {learner['learner_id']} is suspended"))
    if course["status"] != "published":
        problems.append(("conflict", f"course {course['course_id']} is {course['status']}, not open for enrolment"))
    closes = (date.fromisoformat(course["start_date"]) + timedelta(days=LATE_ENROLMENT_DAYS)).isoformat()
    if ctx.today > closes:
        problems.append(("conflict", f"enrolment in {course['course_id']} closed on {closes}"))
    if course["seats_taken"] >= course["seat_limit"]:
        problems.append(("conflict", f"course {course['course_id']} is full ({course['seat_limit']} seats)"))
    held = ctx.db.fetch_one(
        "SELECT e.enrolment_id, e.status FROM enrolments e JOIN courses c ON c.course_id = e.course_id "
        "WHERE e.learner_id = ? AND c.code = ? AND e.status IN ('pending_payment', 'active', 'completed') "
        "ORDER BY e.enrolment_id", (learner["learner_id"], course["code"]))
    if held is not None:
        problems.append(("conflict", f"learner already has {held['status']} enrolment {held['enrolment_id']} "
                                     f"in {course['code']}"))
    if course["prerequisite_code"] is not None:
        done = ctx.db.fetch_one(
            "SELECT count(*) AS n FROM enrolments e JOIN courses c ON c.course_id = e.course_id "
            "WHERE e.learner_id = ? AND c.code = ? AND e.status = 'completed'",
            (learner["learner_id"], course["prerequisite_code"]))["n"]
        if done == 0:
            problems.append(("not_permitted", f"prerequisite {course['prerequisite_code']} not completed"))
    return problems


def _seat(ctx, course_id: str, delta: int) -> None:
    ctx.db.execute("UPDATE courses SET seats_taken = seats_taken + ? WHERE course_id = ?", (delta, course_id))


def _assignment(ctx, assignment_id: str) -> dict:
    return require_row(
        ctx,
        "SELECT assignment_id, course_id, module_id, title, max_points, due_date, grace_days "
        "FROM assignments WHERE assignment_id = ?",
        (assignment_id,),
        f"no assignment {assignment_id}",
    )


def _closes_on(assignment: dict) -> str:
    return (date.fromisoformat(assignment["due_date"]) + timedelta(days=assignment["grace_days"])).isoformat()


def _submission(ctx, submission_id: str) -> dict:
    row = require_row(
        ctx,
        "SELECT s.submission_id, s.assignment_id, s.enrolment_id, s.learner_id, s.submitted_at, s.revision, "
        "s.content_url, s.is_late, s.status, s.raw_points, s.points, s.graded_by, s.graded_on, s.feedback, "
        "a.course_id, a.max_points FROM submissions s JOIN assignments a ON a.assignment_id = s.assignment_id "
        "WHERE s.submission_id = ?",
        (submission_id,),
        f"no submission {submission_id}",
    )
    row["is_late"] = bool(row["is_late"])
    return row


def _attempt_deadline(started_at: str, minutes: int) -> str:
    return (datetime.fromisoformat(started_at) + timedelta(minutes=minutes)).isoformat()


def _progress(ctx, enrolment: dict) -> dict:
    assignments = ctx.db.fetch_all(
        "SELECT a.assignment_id, a.title, a.max_points, a.due_date, s.submission_id, s.status, s.points "
        "FROM assignments a LEFT JOIN submissions s ON s.assignment_id = a.assignment_id AND s.enrolment_id = ? "
        "WHERE a.course_id = ? ORDER BY a.due_date, a.assignment_id", (enrolment["enrolment_id"], enrolment["course_id"]))
    quizzes = ctx.db.fetch_all(
        "SELECT q.quiz_id, q.title, q.pass_percent, q.max_attempts, "
        "(SELECT count(*) FROM quiz_attempts t WHERE t.quiz_id = q.quiz_id AND t.enrolment_id = ?) AS attempts_used, "
        "(SELECT max(score_percent) FROM quiz_attempts t WHERE t.quiz_id = q.quiz_id AND t.enrolment_id = ? "
        "AND t.status = 'passed') AS best_passed_percent "
        "FROM quizzes q WHERE q.course_id = ? ORDER BY q.quiz_id",
        (enrolment["enrolment_id"], enrolment["enrolment_id"], enrolment["course_id"]))
    items = []
    for a in assignments:
        a["status"] = a["status"] or "not_submitted"
        if a["status"] == "graded":
            items.append(a["points"] * 100 // a["max_points"])
    for q in quizzes:
        q["passed"] = q["best_passed_percent"] is not None
        if q["passed"]:
            items.append(q["best_passed_percent"])
    complete = all(a["status"] == "graded" for a in assignments) and all(q["passed"] for q in quizzes)
    grade = (sum(items) * 2 + len(items)) // (2 * len(items)) if items else None
    return {"assignments": assignments, "quizzes": quizzes, "coursework_complete": complete,
            "grade_so_far_percent": grade}


# -- learners, instructors, courses --------------------------------------------------------------

def identify_learner(ctx, email: str | None = None, full_name: str | None = None, date_of_birth: str | None = None,
                     country: str | None = None) -> dict:
    if email is not None:
        rows = ctx.db.fetch_all(
            "SELECT learner_id, full_name, email, country, status FROM learners WHERE lower(email) = lower(?)",
            (email.strip(),))
    elif full_name is not None:
        born = optional_date(date_of_birth, "date_of_birth")
        rows = ctx.db.fetch_all(
            "SELECT learner_id, full_name, email, country, status FROM learners WHERE lower(full_name) = lower(?) "
            "AND (? IS NULL OR date_of_birth = ?) AND (? IS NULL OR country = upper(?)) ORDER BY learner_id",
            (full_name.strip(), born, born, country, country))
    else:
        raise InvalidArgumentError("give the learner's email, or full_name with date_of_birth or country")
    if not rows:
        raise NotFoundError("no learner matches; check the spelling, or ask for the email the account uses")
    if len(rows) > 1:
        where = f" in {country.upper()}" if country is not None else ""
        raise InvalidArgumentError(f"{len(rows)} learners are named {full_name.strip()}{where}; "
                                   "ask for the date of birth or the email")
    return rows[0]


def identify_instructor(ctx, email: str | None = None, full_name: str | None = None,
                        expertise: str | None = None) -> dict:
    if email is not None:
        rows = ctx.db.fetch_all(
            "SELECT instructor_id, full_name, email, expertise, status FROM instructors WHERE lower(email) = lower(?)",
            (email.strip(),))
    elif full_name is not None:
        rows = ctx.db.fetch_all(
            "SELECT instructor_id, full_name, email, expertise, status FROM instructors "
            "WHERE lower(full_name) = lower(?) AND (? IS NULL OR expertise = ?) ORDER BY instructor_id",
            (full_name.strip(), expertise, expertise))
    else:
        raise InvalidArgumentError("give the instructor's faculty email, or full_name with expertise")
    if not rows:
        raise NotFoundError("no instructor matches; check the spelling, or ask for the faculty email")
    if len(rows) > 1:
        raise InvalidArgumentError(f"{len(rows)} instructors are named {full_name.strip()}; "
                                   "ask for the faculty email or the subject they teach")
    return rows[0]


def find_learners(ctx, acting_instructor_id: str, name: str | None = None, email: str | None = None,
                  country: str | None = None, status: str | None = None, limit: int = 20, offset: int = 0) -> dict:
    _acting_instructor(ctx, acting_instructor_id)
    rows = ctx.db.fetch_all(
        "SELECT l.learner_id, l.full_name, l.email, l.country, l.status, l.joined_on FROM learners l "
        "WHERE EXISTS (SELECT 1 FROM enrolments e JOIN courses c ON c.course_id = e.course_id "
        "WHERE e.learner_id = l.learner_id AND c.instructor_id = ?) "
        "AND (? IS NULL OR l.full_name LIKE '%' || ? || '%') AND (? IS NULL OR l.email LIKE '%' || ? || '%') "
        "AND (? IS NULL OR l.country = upper(?)) AND (? IS NULL OR l.status = ?) ORDER BY l.learner_id",
        (acting_instructor_id, name, name, email, email, country, country, status, status))
    return paginate(rows, limit, offset)


def get_learner(ctx, acting_user_id: str, learner_id: str) -> dict:
    kind = _acting_user(ctx, acting_user_id)
    learner = _learner(ctx, learner_id)
    if kind == "learner":
        allowed = acting_user_id == learner_id
    else:
        allowed = ctx.db.fetch_one(
            "SELECT e.enrolment_id FROM enrolments e JOIN courses c ON c.course_id = e.course_id "
            "WHERE e.learner_id = ? AND c.instructor_id = ?", (learner_id, acting_user_id)) is not None
    require_permission(allowed, PROFILE_RULE)
    learner["enrolments"] = ctx.db.fetch_all(
        "SELECT e.enrolment_id, e.course_id, c.code, c.title, c.start_date, e.status FROM enrolments e "
        "JOIN courses c ON c.course_id = e.course_id WHERE e.learner_id = ? ORDER BY c.start_date, e.enrolment_id",
        (learner_id,))
    return learner


def find_instructors(ctx, name: str | None = None, expertise: str | None = None, status: str | None = None,
                     limit: int = 20, offset: int = 0) -> dict:
    rows = ctx.db.fetch_all(
        "SELECT i.instructor_id, i.full_name, i.email, i.expertise, i.status, "
        "(SELECT count(*) FROM courses c WHERE c.instructor_id = i.instructor_id AND c.status = 'published') "
        "AS published_courses FROM instructors i "
        "WHERE (? IS NULL OR i.full_name LIKE '%' || ? || '%') AND (? IS NULL OR i.expertise = ?) "
        "AND (? IS NULL OR i.status = ?) ORDER BY i.instructor_id",
        (name, name, expertise, expertise, status, status))
    return paginate(rows, limit, offset)


def find_courses(ctx, text: str | None = None, code: str | None = None, category: str | None = None,
                 level: str | None = None, status: str | None = None, instructor_id: str | None = None,
                 starts_from: str | None = None, starts_to: str | None = None, with_seats_only: bool = False,
                 limit: int = 20, offset: int = 0) -> dict:
    first, last = _range(starts_from, starts_to, "starts_from", "starts_to")
    rows = ctx.db.fetch_all(
        "SELECT course_id, code, title, category, level, instructor_id, prerequisite_code, price_cents, seat_limit, "
        "seats_taken, seat_limit - seats_taken AS seats_left, start_date, end_date, status FROM courses "
        "WHERE (? IS NULL OR title LIKE '%' || ? || '%' OR code LIKE '%' || ? || '%') "
        "AND (? IS NULL OR code = upper(?)) AND (? IS NULL OR category = ?) AND (? IS NULL OR level = ?) "
        "AND (? IS NULL OR status = ?) AND (? IS NULL OR instructor_id = ?) "
        "AND (? IS NULL OR start_date >= ?) AND (? IS NULL OR start_date <= ?) "
        "AND (? = 0 OR seats_taken < seat_limit) ORDER BY start_date, code, course_id",
        (text, text, text, code, code, category, category, level, level, status, status, instructor_id,
         instructor_id, first, first, last, last, 1 if with_seats_only else 0))
    return paginate(rows, limit, offset)


def get_course_outline(ctx, course_id: str) -> dict:
    course = _course(ctx, course_id)
    modules = ctx.db.fetch_all("SELECT module_id, position, title FROM modules WHERE course_id = ? ORDER BY position",
                               (course_id,))
    total = 0
    for module in modules:
        module["lessons"] = ctx.db.fetch_all(
            "SELECT lesson_id, position, title, kind, duration_minutes FROM lessons WHERE module_id = ? "
            "ORDER BY position", (module["module_id"],))
        total += sum(lesson["duration_minutes"] for lesson in module["lessons"])
    instructor = ctx.db.fetch_one("SELECT full_name FROM instructors WHERE instructor_id = ?",
                                  (course["instructor_id"],))
    course["instructor_name"] = instructor["full_name"]
    course["seats_left"] = course["seat_limit"] - course["seats_taken"]
    course["modules"] = modules
    course["total_lesson_minutes"] = total
    return course


def check_enrolment_eligibility(ctx, acting_learner_id: str, learner_id: str, course_id: str) -> dict:
    _acting_learner(ctx, acting_learner_id)
    learner = _learner(ctx, learner_id)
    course = _course(ctx, course_id)
    require_permission(acting_learner_id == learner_id, ELIGIBILITY_RULE)
    problems = _enrol_problems(ctx, learner, course)
    return {"learner_id": learner_id, "course_id": course_id, "eligible": not problems,
            "reasons": [message for _, message in problems], "price_cents": course["price_cents"]}


# -- enrolments and money ---------------------------------------------------------------------------

def find_enrolments(ctx, acting_user_id: str, learner_id: str | None = None, course_id: str | None = None,
                    code: str | None = None, status: str | None = None, enrolled_from: str | None = None,
                    enrolled_to: str | None = None, limit: int = 20, offset: int = 0) -> dict:
    kind = _acting_user(ctx, acting_user_id)
    first, last = _range(enrolled_from, enrolled_to, "enrolled_from", "enrolled_to")
    if kind == "learner":
        require_permission(learner_id is None or learner_id == acting_user_id, ENROLMENTS_RULE)
    elif course_id is not None:
        require_permission(_teaches(ctx, acting_user_id, course_id), ENROLMENTS_RULE)
    own, taught = _scope(kind, acting_user_id)
    rows = ctx.db.fetch_all(
        "SELECT e.enrolment_id, e.learner_id, l.full_name AS learner_name, e.course_id, c.code, c.title, "
        "c.start_date, e.status, e.enrolled_on, e.list_price_cents - e.discount_cents AS amount_due_cents, "
        "e.paid_cents, e.refunded_cents FROM enrolments e JOIN courses c ON c.course_id = e.course_id "
        "JOIN learners l ON l.learner_id = e.learner_id "
        "WHERE (? IS NULL OR e.learner_id = ?) AND (? IS NULL OR c.instructor_id = ?) "
        "AND (? IS NULL OR e.learner_id = ?) AND (? IS NULL OR e.course_id = ?) AND (? IS NULL OR c.code = upper(?)) "
        "AND (? IS NULL OR e.status = ?) AND (? IS NULL OR e.enrolled_on >= ?) AND (? IS NULL OR e.enrolled_on <= ?) "
        "ORDER BY e.enrolled_on DESC, e.enrolment_id DESC",
        (own, own, taught, taught, learner_id, learner_id, course_id, course_id, code, code, status, status,
         first, first, last, last))
    return paginate(rows, limit, offset)


def get_enrolment(ctx, acting_user_id: str, enrolment_id: str) -> dict:
    kind = _acting_user(ctx, acting_user_id)
    enrolment = _enrolment(ctx, enrolment_id)
    require_permission(_may_see_enrolment(ctx, kind, acting_user_id, enrolment), ENROLMENTS_RULE)
    return _enrolment_detail(ctx, enrolment)


def _enrolment_detail(ctx, enrolment: dict) -> dict:
    enrolment_id = enrolment["enrolment_id"]
    enrolment["balance_due_cents"] = max(0, enrolment["amount_due_cents"] - enrolment["paid_cents"]) \
        if enrolment["status"] == "pending_payment" else 0
    pending = ctx.db.fetch_one("SELECT coalesce(sum(amount_cents), 0) AS s FROM refunds WHERE enrolment_id = ? "
                               "AND status = 'pending'", (enrolment_id,))["s"]
    enrolment["refundable_cents"] = enrolment["paid_cents"] - enrolment["refunded_cents"] - pending
    return enrolment


def enrol_learner(ctx, acting_learner_id: str, learner_id: str, course_id: str, coupon_code: str | None = None) -> dict:
    _acting_learner(ctx, acting_learner_id)
    learner = _learner(ctx, learner_id)
    course = _course(ctx, course_id)
    require_permission(acting_learner_id == learner_id, ENROL_RULE)
    problems = _enrol_problems(ctx, learner, course)
    for code, message in problems:
        if code == "not_permitted":
            raise NotPermittedError(message)
    if problems:
        raise ConflictError(problems[0][1])
    coupon_id = None
    discount = 0
    if coupon_code is not None:
        coupon = _coupon_by_code(ctx, coupon_code)
        problem = _coupon_problem(ctx, coupon, course_id)
        if problem is not None:
            raise ConflictError(problem)
        if course["price_cents"] == 0:
            raise ConflictError(f"course {course_id} is free; no coupon is needed")
        coupon_id = coupon["coupon_id"]
        discount = course["price_cents"] * coupon["percent_off"] // 100
        ctx.db.execute("UPDATE coupons SET times_used = times_used + 1 WHERE coupon_id = ?", (coupon_id,))
    due = course["price_cents"] - discount
    status = "active" if due == 0 else "pending_payment"
    enrolment_id = ctx.new_id("ENR")
    ctx.db.execute(
        "INSERT INTO enrolments (enrolment_id, learner_id, course_id, status, enrolled_on, list_price_cents, coupon_id, "
        "discount_cents, paid_cents, paid_on, payment_method, refunded_cents, completed_on, final_grade_percent) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, 0, NULL, NULL)",
        (enrolment_id, learner_id, course_id, status, ctx.today, course["price_cents"], coupon_id, discount,
         ctx.today if due == 0 else None, "coupon" if due == 0 and coupon_id is not None else None))
    _seat(ctx, course_id, 1)
    return {"enrolment_id": enrolment_id, "learner_id": learner_id, "course_id": course_id, "status": status,
            "list_price_cents": course["price_cents"], "coupon_id": coupon_id, "discount_cents": discount,
            "amount_due_cents": due}


def apply_coupon(ctx, acting_learner_id: str, enrolment_id: str, coupon_code: str) -> dict:
    _acting_learner(ctx, acting_learner_id)
    enrolment = _enrolment(ctx, enrolment_id)
    require_permission(enrolment["learner_id"] == acting_learner_id, APPLY_RULE)
    if enrolment["status"] != "pending_payment":
        raise ConflictError(f"enrolment {enrolment_id} is {enrolment['status']}; coupons apply only before payment")
    if enrolment["coupon_id"] is not None:
        raise ConflictError(f"enrolment {enrolment_id} already uses coupon {enrolment['coupon_id']}")
    coupon = _coupon_by_code(ctx, coupon_code)
    problem = _coupon_problem(ctx, coupon, enrolment["course_id"])
    if problem is not None:
        raise ConflictError(problem)
    discount = enrolment["list_price_cents"] * coupon["percent_off"] // 100
    due = enrolment["list_price_cents"] - discount
    status = "active" if due == 0 else "pending_payment"
    ctx.db.execute("UPDATE enrolments SET coupon_id = ?, discount_cents = ?, status = ?, paid_on = ?, "
                   "payment_method = ? WHERE enrolment_id = ?",
                   (coupon["coupon_id"], discount, status, ctx.today if due == 0 else None,
                    "coupon" if due == 0 else None, enrolment_id))
    ctx.db.execute("UPDATE coupons SET times_used = times_used + 1 WHERE coupon_id = ?", (coupon["coupon_id"],))
    return {"enrolment_id": enrolment_id, "coupon_id": coupon["coupon_id"], "discount_cents": discount,
            "amount_due_cents": due, "status": status}


def pay_enrolment(ctx, acting_learner_id: str, enrolment_id: str, amount_cents: int, payment_method: str) -> dict:
    require_choice(payment_method, PAYMENT_METHODS, "payment_method")
    _acting_learner(ctx, acting_learner_id)
    enrolment = _enrolment(ctx, enrolment_id)
    require_permission(enrolment["learner_id"] == acting_learner_id, PAY_RULE)
    if enrolment["status"] != "pending_payment":
        raise ConflictError(f"enrolment {enrolment_id} is {enrolment['status']}, not awaiting payment")
    learner = _learner(ctx, enrolment["learner_id"])
    if learner["status"] != "active":
        raise NotPermittedError(f"learner {learner['learner_id']} is suspended")
    if amount_cents != enrolment["amount_due_cents"]:
        raise InvalidArgumentError(f"amount_cents must be exactly the amount due, {enrolment['amount_due_cents']} cents")
    ctx.db.execute("UPDATE enrolments SET status = 'active', paid_cents = ?, paid_on = ?, payment_method = ? "
                   "WHERE enrolment_id = ?", (amount_cents, ctx.today, payment_method, enrolment_id))
    return {"enrolment_id": enrolment_id, "course_id": enrolment["course_id"], "status": "active",
            "paid_cents": amount_cents, "paid_on": ctx.today, "payment_method": payment_method}


def withdraw_enrolment(ctx, acting_learner_id: str, enrolment_id: str) -> dict:
    _acting_learner(ctx, acting_learner_id)
    enrolment = _enrolment(ctx, enrolment_id)
    require_permission(enrolment["learner_id"] == acting_learner_id, WITHDRAW_RULE)
    if enrolment["status"] not in ("pending_payment", "active"):
        raise ConflictError(f"enrolment {enrolment_id} is {enrolment['status']}; only pending or active "
                            "enrolments can be withdrawn")
    ctx.db.execute("UPDATE enrolments SET status = 'withdrawn' WHERE enrolment_id = ?", (enrolment_id,))
    _seat(ctx, enrolment["course_id"], -1)
    return {"enrolment_id": enrolment_id, "course_id": enrolment["course_id"], "status": "withdrawn",
            "paid_cents": enrolment["paid_cents"], "refunded_cents": enrolment["refunded_cents"]}


def transfer_enrolment(ctx, acting_learner_id: str, enrolment_id: str, target_course_id: str) -> dict:
    _acting_learner(ctx, acting_learner_id)
    enrolment = _enrolment(ctx, enrolment_id)
    target = _course(ctx, target_course_id)
    require_permission(enrolment["learner_id"] == acting_learner_id, TRANSFER_RULE)
    if enrolment["status"] not in ("pending_payment", "active"):
        raise ConflictError(f"enrolment {enrolment_id} is {enrolment['status']}; only pending or active "
                            "enrolments can be transferred")
    if target_course_id == enrolment["course_id"]:
        raise InvalidArgumentError("target_course_id is the run the enrolment is already in")
    if target["code"] != enrolment["code"]:
        raise NotPermittedError(f"{target_course_id} is {target['code']}, not another run of {enrolment['code']}")
    if target["status"] != "published" or target["start_date"] <= ctx.today:
        raise ConflictError(f"run {target_course_id} is not a published run that has yet to start")
    if target["seats_taken"] >= target["seat_limit"]:
        raise ConflictError(f"run {target_course_id} is full")
    if target["price_cents"] != enrolment["list_price_cents"]:
        raise ConflictError(f"run {target_course_id} costs {target['price_cents']} cents, not "
                            f"{enrolment['list_price_cents']}; withdraw and enrol instead")
    work = ctx.db.fetch_one(
        "SELECT (SELECT count(*) FROM submissions WHERE enrolment_id = ?) + "
        "(SELECT count(*) FROM quiz_attempts WHERE enrolment_id = ?) AS n", (enrolment_id, enrolment_id))["n"]
    if work > 0:
        raise ConflictError(f"enrolment {enrolment_id} already has coursework and cannot move")
    ctx.db.execute("UPDATE enrolments SET course_id = ? WHERE enrolment_id = ?", (target_course_id, enrolment_id))
    _seat(ctx, enrolment["course_id"], -1)
    _seat(ctx, target_course_id, 1)
    return {"enrolment_id": enrolment_id, "from_course_id": enrolment["course_id"], "course_id": target_course_id,
            "start_date": target["start_date"], "status": enrolment["status"]}


def request_refund(ctx, acting_learner_id: str, enrolment_id: str, amount_cents: int, reason: str) -> dict:
    if amount_cents <= 0:
        raise InvalidArgumentError("amount_cents must be positive")
    if not reason.strip():
        raise InvalidArgumentError("reason must not be empty")
    _acting_learner(ctx, acting_learner_id)
    enrolment = _enrolment(ctx, enrolment_id)
    require_permission(enrolment["learner_id"] == acting_learner_id, REQUEST_REFUND_RULE)
    enrolment = _enrolment_detail(ctx, enrolment)
    if enrolment["status"] == "completed":
        raise NotPermittedError(f"enrolment {enrolment_id} is completed with a certificate; no refund")
    if enrolment["paid_cents"] == 0:
        raise ConflictError(f"nothing was paid for enrolment {enrolment_id}")
    if enrolment["paid_on"] is None:
        raise ConflictError(f"enrolment {enrolment_id} has no payment date on record; its refund window cannot be dated")
    course = _course(ctx, enrolment["course_id"])
    window = (date.fromisoformat(enrolment["paid_on"]) + timedelta(days=REFUND_WINDOW_DAYS)).isoformat()
    last_day = max(window, course["start_date"])
    if ctx.today > last_day:
        raise NotPermittedError(f"the refund window closed on {last_day}")
    if amount_cents > enrolment["refundable_cents"]:
        raise ConflictError(f"at most {enrolment['refundable_cents']} cents can still be refunded")
    refund_id = ctx.new_id("RFD")
    ctx.db.execute("INSERT INTO refunds (refund_id, enrolment_id, amount_cents, reason, status, requested_on, "
                   "decided_on, decision_note) VALUES (?, ?, ?, ?, 'pending', ?, NULL, NULL)",
                   (refund_id, enrolment_id, amount_cents, reason.strip(), ctx.today))
    return {"refund_id": refund_id, "enrolment_id": enrolment_id, "amount_cents": amount_cents, "status": "pending",
            "refund_window_closes_on": last_day}


def _refund(ctx, acting_instructor_id: str, refund_id: str) -> dict:
    """A pending refund the acting instructor may decide: the refund exists, they teach its run, it is pending."""
    _acting_instructor(ctx, acting_instructor_id)
    row = require_row(
        ctx,
        "SELECT r.refund_id, r.enrolment_id, r.amount_cents, r.reason, r.status, r.requested_on, r.decided_on, "
        "r.decision_note, e.course_id FROM refunds r JOIN enrolments e ON e.enrolment_id = r.enrolment_id "
        "WHERE r.refund_id = ?",
        (refund_id,),
        f"no refund {refund_id}",
    )
    require_permission(_teaches(ctx, acting_instructor_id, row["course_id"]), DECIDE_REFUND_RULE)
    if row["status"] != "pending":
        raise ConflictError(f"refund {refund_id} is already {row['status']}")
    return row


def approve_refund(ctx, acting_instructor_id: str, refund_id: str, note: str | None = None) -> dict:
    refund = _refund(ctx, acting_instructor_id, refund_id)
    enrolment = _enrolment(ctx, refund["enrolment_id"])
    remaining = enrolment["paid_cents"] - enrolment["refunded_cents"]
    if refund["amount_cents"] > remaining:
        raise ConflictError(f"only {remaining} cents remain refundable on {enrolment['enrolment_id']}")
    refunded = enrolment["refunded_cents"] + refund["amount_cents"]
    status = enrolment["status"]
    if status == "active" and refunded == enrolment["paid_cents"]:
        status = "withdrawn"
        _seat(ctx, enrolment["course_id"], -1)
    ctx.db.execute("UPDATE refunds SET status = 'approved', decided_on = ?, decision_note = ? WHERE refund_id = ?",
                   (ctx.today, note, refund_id))
    ctx.db.execute("UPDATE enrolments SET refunded_cents = ?, status = ? WHERE enrolment_id = ?",
                   (refunded, status, enrolment["enrolment_id"]))
    return {"refund_id": refund_id, "enrolment_id": enrolment["enrolment_id"], "status": "approved",
            "amount_cents": refund["amount_cents"], "refunded_cents": refunded, "enrolment_status": status}


def reject_refund(ctx, acting_instructor_id: str, refund_id: str, note: str) -> dict:
    if not note.strip():
        raise InvalidArgumentError("note must explain the rejection")
    refund = _refund(ctx, acting_instructor_id, refund_id)
    ctx.db.execute("UPDATE refunds SET status = 'rejected', decided_on = ?, decision_note = ? WHERE refund_id = ?",
                   (ctx.today, note.strip(), refund_id))
    return {"refund_id": refund_id, "enrolment_id": refund["enrolment_id"], "status": "rejected"}


def list_refunds(ctx, acting_user_id: str, enrolment_id: str | None = None, status: str | None = None,
                 requested_from: str | None = None, requested_to: str | None = None, limit: int = 20,
                 offset: int = 0) -> dict:
    kind = _acting_user(ctx, acting_user_id)
    first, last = _range(requested_from, requested_to, "requested_from", "requested_to")
    if enrolment_id is not None:
        enrolment = _enrolment(ctx, enrolment_id)
        require_permission(_may_see_enrolment(ctx, kind, acting_user_id, enrolment), REFUNDS_RULE)
    own, taught = _scope(kind, acting_user_id)
    rows = ctx.db.fetch_all(
        "SELECT r.refund_id, r.enrolment_id, e.learner_id, e.course_id, r.amount_cents, r.reason, r.status, "
        "r.requested_on, r.decided_on, r.decision_note FROM refunds r "
        "JOIN enrolments e ON e.enrolment_id = r.enrolment_id JOIN courses c ON c.course_id = e.course_id "
        "WHERE (? IS NULL OR e.learner_id = ?) AND (? IS NULL OR c.instructor_id = ?) "
        "AND (? IS NULL OR r.enrolment_id = ?) AND (? IS NULL OR r.status = ?) "
        "AND (? IS NULL OR r.requested_on >= ?) AND (? IS NULL OR r.requested_on <= ?) "
        "ORDER BY r.requested_on DESC, r.refund_id DESC",
        (own, own, taught, taught, enrolment_id, enrolment_id, status, status, first, first, last, last))
    return paginate(rows, limit, offset)


# -- coupons -------------------------------------------------------------------------------------

def find_coupons(ctx, code: str | None = None, course_id: str | None = None, status: str | None = None,
                 valid_on: str | None = None, limit: int = 20, offset: int = 0) -> dict:
    day = optional_date(valid_on, "valid_on")
    rows = ctx.db.fetch_all(
        "SELECT coupon_id, code, percent_off, course_id, valid_from, valid_until, max_uses, times_used, "
        "max_uses - times_used AS uses_left, status FROM coupons "
        "WHERE (? IS NULL OR code LIKE '%' || ? || '%') AND (? IS NULL OR course_id = ?) "
        "AND (? IS NULL OR status = ?) AND (? IS NULL OR (valid_from <= ? AND valid_until >= ?)) ORDER BY coupon_id",
        (code, code, course_id, course_id, status, status, day, day, day))
    return paginate(rows, limit, offset)


def create_coupon(ctx, acting_instructor_id: str, course_id: str, code: str, percent_off: int, valid_from: str,
                  valid_until: str, max_uses: int) -> dict:
    code = code.strip().upper()
    if fullmatch(CODE_PATTERN, code) is None:
        raise InvalidArgumentError("code must be 4-20 letters, digits or dashes")
    if not 5 <= percent_off <= 100:
        raise InvalidArgumentError("percent_off must be between 5 and 100")
    if max_uses < 1:
        raise InvalidArgumentError("max_uses must be at least 1")
    first = require_date(valid_from, "valid_from").isoformat()
    last = require_date(valid_until, "valid_until").isoformat()
    if last < first or last < ctx.today:
        raise InvalidArgumentError("valid_until must be on or after valid_from and not in the past")
    _acting_instructor(ctx, acting_instructor_id)
    course = _course(ctx, course_id)
    require_permission(course["instructor_id"] == acting_instructor_id, COUPON_RULE)
    if course["status"] == "archived":
        raise ConflictError(f"course {course_id} is archived")
    if ctx.db.fetch_one("SELECT coupon_id FROM coupons WHERE code = ?", (code,)) is not None:
        raise ConflictError(f"coupon code {code} already exists")
    coupon_id = ctx.new_id("CPN")
    ctx.db.execute("INSERT INTO coupons (coupon_id, code, percent_off, course_id, valid_from, valid_until, max_uses, "
                   "times_used, status) VALUES (?, ?, ?, ?, ?, ?, ?, 0, 'active')",
                   (coupon_id, code, percent_off, course_id, first, last, max_uses))
    return {"coupon_id": coupon_id, "code": code, "percent_off": percent_off, "course_id": course_id,
            "valid_from": first, "valid_until": last, "max_uses": max_uses, "status": "active"}


# -- coursework ------------------------------------------------------------------------------------

def get_enrolment_progress(ctx, acting_user_id: str, enrolment_id: str) -> dict:
    kind = _acting_user(ctx, acting_user_id)
    enrolment = _enrolment(ctx, enrolment_id)
    require_permission(_may_see_enrolment(ctx, kind, acting_user_id, enrolment), ENROLMENTS_RULE)
    progress = _progress(ctx, enrolment)
    course = _course(ctx, enrolment["course_id"])
    progress.update({"enrolment_id": enrolment_id, "course_id": enrolment["course_id"],
                     "status": enrolment["status"], "pass_mark_percent": course["pass_mark_percent"]})
    return progress


def list_assignments(ctx, course_id: str, due_from: str | None = None, due_to: str | None = None) -> dict:
    _course(ctx, course_id)
    first, last = _range(due_from, due_to, "due_from", "due_to")
    rows = ctx.db.fetch_all(
        "SELECT assignment_id, course_id, module_id, title, max_points, due_date, grace_days FROM assignments "
        "WHERE course_id = ? AND (? IS NULL OR due_date >= ?) AND (? IS NULL OR due_date <= ?) "
        "ORDER BY due_date, assignment_id", (course_id, first, first, last, last))
    for row in rows:
        row["closes_on"] = _closes_on(row)
    return {"items": rows}


def find_submissions(ctx, acting_user_id: str, assignment_id: str | None = None, enrolment_id: str | None = None,
                     learner_id: str | None = None, status: str | None = None, limit: int = 20,
                     offset: int = 0) -> dict:
    kind = _acting_user(ctx, acting_user_id)
    if kind == "learner":
        require_permission(learner_id is None or learner_id == acting_user_id, SUBMISSIONS_RULE)
    own, taught = _scope(kind, acting_user_id)
    rows = ctx.db.fetch_all(
        "SELECT s.submission_id, s.assignment_id, a.title AS assignment_title, a.course_id, s.enrolment_id, "
        "s.learner_id, s.submitted_at, s.revision, s.content_url, s.is_late, s.status, s.raw_points, s.points, "
        "a.max_points, s.graded_by, s.graded_on, s.feedback FROM submissions s "
        "JOIN assignments a ON a.assignment_id = s.assignment_id JOIN courses c ON c.course_id = a.course_id "
        "WHERE (? IS NULL OR s.learner_id = ?) AND (? IS NULL OR c.instructor_id = ?) "
        "AND (? IS NULL OR s.assignment_id = ?) AND (? IS NULL OR s.enrolment_id = ?) "
        "AND (? IS NULL OR s.learner_id = ?) AND (? IS NULL OR s.status = ?) "
        "ORDER BY s.submitted_at DESC, s.submission_id DESC",
        (own, own, taught, taught, assignment_id, assignment_id, enrolment_id, enrolment_id, learner_id, learner_id,
         status, status))
    for row in rows:
        row["is_late"] = bool(row["is_late"])
    return paginate(rows, limit, offset)


def submit_assignment(ctx, acting_learner_id: str, enrolment_id: str, assignment_id: str, content_url: str) -> dict:
    if not content_url.startswith("https://"):
        raise InvalidArgumentError("content_url must be an https:// link")
    _acting_learner(ctx, acting_learner_id)
    enrolment = _enrolment(ctx, enrolment_id)
    assignment = _assignment(ctx, assignment_id)
    require_permission(enrolment["learner_id"] == acting_learner_id, SUBMIT_RULE)
    if assignment["course_id"] != enrolment["course_id"]:
        raise InvalidArgumentError(f"assignment {assignment_id} belongs to {assignment['course_id']}, "
                                   f"not to {enrolment['course_id']}")
    if enrolment["status"] != "active":
        raise ConflictError(f"enrolment {enrolment_id} is {enrolment['status']}; only active enrolments submit work")
    closes = _closes_on(assignment)
    if ctx.today > closes:
        raise NotPermittedError(f"assignment {assignment_id} closed on {closes}")
    late = 1 if ctx.today > assignment["due_date"] else 0
    existing = ctx.db.fetch_one("SELECT submission_id, status, revision FROM submissions "
                                "WHERE assignment_id = ? AND enrolment_id = ?", (assignment_id, enrolment_id))
    if existing is not None and existing["status"] != "returned":
        raise ConflictError(f"submission {existing['submission_id']} is already {existing['status']}")
    if existing is not None:
        submission_id = existing["submission_id"]
        revision = existing["revision"] + 1
        ctx.db.execute("UPDATE submissions SET submitted_at = ?, revision = ?, content_url = ?, is_late = ?, "
                       "status = 'submitted' WHERE submission_id = ?",
                       (ctx.now, revision, content_url, late, submission_id))
    else:
        submission_id = ctx.new_id("SUB")
        revision = 1
        ctx.db.execute(
            "INSERT INTO submissions (submission_id, assignment_id, enrolment_id, learner_id, submitted_at, revision, "
            "content_url, is_late, status, raw_points, points, graded_by, graded_on, feedback) "
            "VALUES (?, ?, ?, ?, ?, 1, ?, ?, 'submitted', NULL, NULL, NULL, NULL, NULL)",
            (submission_id, assignment_id, enrolment_id, enrolment["learner_id"], ctx.now, content_url, late))
    return {"submission_id": submission_id, "assignment_id": assignment_id, "enrolment_id": enrolment_id,
            "revision": revision, "is_late": bool(late), "status": "submitted", "submitted_at": ctx.now}


def grade_submission(ctx, acting_instructor_id: str, submission_id: str, raw_points: int, feedback: str) -> dict:
    _acting_instructor(ctx, acting_instructor_id)
    submission = _submission(ctx, submission_id)
    require_permission(_teaches(ctx, acting_instructor_id, submission["course_id"]), GRADE_RULE)
    if submission["status"] != "submitted":
        raise ConflictError(f"submission {submission_id} is {submission['status']}, not awaiting a grade")
    if not 0 <= raw_points <= submission["max_points"]:
        raise InvalidArgumentError(f"raw_points must be between 0 and {submission['max_points']}")
    penalty = -(-submission["max_points"] * LATE_PENALTY_PERCENT // 100) if submission["is_late"] else 0
    points = max(0, raw_points - penalty)
    ctx.db.execute("UPDATE submissions SET status = 'graded', raw_points = ?, points = ?, graded_by = ?, "
                   "graded_on = ?, feedback = ? WHERE submission_id = ?",
                   (raw_points, points, acting_instructor_id, ctx.today, feedback, submission_id))
    return {"submission_id": submission_id, "enrolment_id": submission["enrolment_id"], "status": "graded",
            "raw_points": raw_points, "late_penalty_points": min(penalty, raw_points), "points": points,
            "max_points": submission["max_points"]}


def return_submission(ctx, acting_instructor_id: str, submission_id: str, feedback: str) -> dict:
    if not feedback.strip():
        raise InvalidArgumentError("feedback must say what to fix")
    _acting_instructor(ctx, acting_instructor_id)
    submission = _submission(ctx, submission_id)
    require_permission(_teaches(ctx, acting_instructor_id, submission["course_id"]), GRADE_RULE)
    if submission["status"] != "submitted":
        raise ConflictError(f"submission {submission_id} is {submission['status']}, not awaiting a grade")
    ctx.db.execute("UPDATE submissions SET status = 'returned', graded_by = ?, feedback = ? WHERE submission_id = ?",
                   (acting_instructor_id, feedback.strip(), submission_id))
    return {"submission_id": submission_id, "assignment_id": submission["assignment_id"],
            "enrolment_id": submission["enrolment_id"], "status": "returned"}


def list_quizzes(ctx, course_id: str) -> dict:
    _course(ctx, course_id)
    return {"items": ctx.db.fetch_all(
        "SELECT quiz_id, course_id, title, question_count, pass_percent, max_attempts, time_limit_minutes "
        "FROM quizzes WHERE course_id = ? ORDER BY quiz_id", (course_id,))}


def list_quiz_attempts(ctx, acting_user_id: str, enrolment_id: str, quiz_id: str | None = None) -> dict:
    kind = _acting_user(ctx, acting_user_id)
    enrolment = _enrolment(ctx, enrolment_id)
    require_permission(_may_see_enrolment(ctx, kind, acting_user_id, enrolment), ENROLMENTS_RULE)
    return {"items": ctx.db.fetch_all(
        "SELECT attempt_id, quiz_id, enrolment_id, attempt_number, started_at, submitted_at, correct_answers, "
        "score_percent, status FROM quiz_attempts WHERE enrolment_id = ? AND (? IS NULL OR quiz_id = ?) "
        "ORDER BY quiz_id, attempt_number", (enrolment_id, quiz_id, quiz_id))}


def start_quiz_attempt(ctx, acting_learner_id: str, enrolment_id: str, quiz_id: str) -> dict:
    _acting_learner(ctx, acting_learner_id)
    enrolment = _enrolment(ctx, enrolment_id)
    quiz = require_row(
        ctx,
        "SELECT quiz_id, course_id, question_count, max_attempts, time_limit_minutes "
        "FROM quizzes WHERE quiz_id = ?",
        (quiz_id,),
        f"no quiz {quiz_id}",
    )
    require_permission(enrolment["learner_id"] == acting_learner_id, QUIZ_START_RULE)
    if quiz["course_id"] != enrolment["course_id"]:
        raise InvalidArgumentError(f"quiz {quiz_id} belongs to {quiz['course_id']}, not to {enrolment['course_id']}")
    if enrolment["status"] != "active":
        raise ConflictError(f"enrolment {enrolment_id} is {enrolment['status']}; only active enrolments take quizzes")
    previous = ctx.db.fetch_all("SELECT attempt_id, attempt_number, started_at, status FROM quiz_attempts "
                                "WHERE quiz_id = ? AND enrolment_id = ? ORDER BY attempt_number",
                                (quiz_id, enrolment_id))
    expired = None
    for attempt in previous:
        if attempt["status"] == "passed":
            raise ConflictError(f"quiz {quiz_id} is already passed ({attempt['attempt_id']})")
        if attempt["status"] == "in_progress":
            if _attempt_deadline(attempt["started_at"], quiz["time_limit_minutes"]) >= ctx.now:
                raise ConflictError(f"attempt {attempt['attempt_id']} is still in progress")
            expired = attempt["attempt_id"]
    if len(previous) >= quiz["max_attempts"]:
        raise NotPermittedError(f"all {quiz['max_attempts']} attempts of quiz {quiz_id} are used")
    if expired is not None:
        ctx.db.execute("UPDATE quiz_attempts SET status = 'failed', correct_answers = 0, score_percent = 0 "
                       "WHERE attempt_id = ?", (expired,))
    attempt_id = ctx.new_id("ATT")
    number = len(previous) + 1
    ctx.db.execute("INSERT INTO quiz_attempts (attempt_id, quiz_id, enrolment_id, attempt_number, started_at, "
                   "submitted_at, correct_answers, score_percent, status) "
                   "VALUES (?, ?, ?, ?, ?, NULL, NULL, NULL, 'in_progress')",
                   (attempt_id, quiz_id, enrolment_id, number, ctx.now))
    return {"attempt_id": attempt_id, "quiz_id": quiz_id, "enrolment_id": enrolment_id, "attempt_number": number,
            "started_at": ctx.now, "submit_by": _attempt_deadline(ctx.now, quiz["time_limit_minutes"]),
            "question_count": quiz["question_count"], "expired_attempt_id": expired}


def submit_quiz_attempt(ctx, acting_learner_id: str, attempt_id: str, correct_answers: int) -> dict:
    _acting_learner(ctx, acting_learner_id)
    attempt = require_row(
        ctx,
        "SELECT t.attempt_id, t.quiz_id, t.enrolment_id, t.started_at, t.status, q.question_count, q.pass_percent, "
        "q.time_limit_minutes, e.learner_id FROM quiz_attempts t JOIN quizzes q ON q.quiz_id = t.quiz_id "
        "JOIN enrolments e ON e.enrolment_id = t.enrolment_id WHERE t.attempt_id = ?",
        (attempt_id,),
        f"no quiz attempt {attempt_id}",
    )
    require_permission(attempt["learner_id"] == acting_learner_id, QUIZ_SUBMIT_RULE)
    if attempt["status"] != "in_progress":
        raise ConflictError(f"attempt {attempt_id} is already {attempt['status']}")
    if not 0 <= correct_answers <= attempt["question_count"]:
        raise InvalidArgumentError(f"correct_answers must be between 0 and {attempt['question_count']}")
    deadline = _attempt_deadline(attempt["started_at"], attempt["time_limit_minutes"])
    if ctx.now > deadline:
        raise NotPermittedError(f"the time limit of attempt {attempt_id} ran out at {deadline}")
    score = correct_answers * 100 // attempt["question_count"]
    status = "passed" if score >= attempt["pass_percent"] else "failed"
    ctx.db.execute("UPDATE quiz_attempts SET submitted_at = ?, correct_answers = ?, score_percent = ?, status = ? "
                   "WHERE attempt_id = ?", (ctx.now, correct_answers, score, status, attempt_id))
    return {"attempt_id": attempt_id, "quiz_id": attempt["quiz_id"], "enrolment_id": attempt["enrolment_id"],
            "score_percent": score, "pass_percent": attempt["pass_percent"], "status": status}


# -- certificates -------------------------------------------------------------------------------

def issue_certificate(ctx, acting_learner_id: str, enrolment_id: str) -> dict:
    _acting_learner(ctx, acting_learner_id)
    enrolment = _enrolment(ctx, enrolment_id)
    require_permission(enrolment["learner_id"] == acting_learner_id, CLAIM_RULE)
    if enrolment["status"] != "active":
        raise ConflictError(f"enrolment {enrolment_id} is {enrolment['status']}; certificates need an active one")
    if enrolment["paid_cents"] < enrolment["amount_due_cents"] or enrolment["refunded_cents"] > 0:
        raise NotPermittedError(f"enrolment {enrolment_id} is not fully paid (refunds count against it)")
    progress = _progress(ctx, enrolment)
    if not progress["coursework_complete"]:
        raise ConflictError("every assignment must be graded and every quiz passed first")
    course = _course(ctx, enrolment["course_id"])
    grade = progress["grade_so_far_percent"]
    if grade is None or grade < course["pass_mark_percent"]:
        raise NotPermittedError(f"final grade {grade}% is below the pass mark of {course['pass_mark_percent']}%")
    certificate_id = ctx.new_id("CRT")
    code = "OL-" + course["code"].replace("-", "") + "-" + certificate_id[4:]
    ctx.db.execute("INSERT INTO certificates (certificate_id, enrolment_id, learner_id, course_id, verification_code, "
                   "issued_on, final_grade_percent, status, revoked_reason) VALUES (?, ?, ?, ?, ?, ?, ?, 'valid', NULL)",
                   (certificate_id, enrolment_id, enrolment["learner_id"], enrolment["course_id"], code, ctx.today,
                    grade))
    ctx.db.execute("UPDATE enrolments SET status = 'completed', completed_on = ?, final_grade_percent = ? "
                   "WHERE enrolment_id = ?", (ctx.today, grade, enrolment_id))
    return {"certificate_id": certificate_id, "enrolment_id": enrolment_id, "learner_id": enrolment["learner_id"],
            "course_id": enrolment["course_id"], "verification_code": code, "final_grade_percent": grade,
            "issued_on": ctx.today}


def find_certificates(ctx, acting_user_id: str, learner_id: str | None = None, course_id: str | None = None,
                      status: str | None = None, issued_from: str | None = None, issued_to: str | None = None,
                      limit: int = 20, offset: int = 0) -> dict:
    kind = _acting_user(ctx, acting_user_id)
    first, last = _range(issued_from, issued_to, "issued_from", "issued_to")
    if kind == "learner":
        require_permission(learner_id is None or learner_id == acting_user_id, CERTIFICATES_RULE)
    elif course_id is not None:
        require_permission(_teaches(ctx, acting_user_id, course_id), CERTIFICATES_RULE)
    own, taught = _scope(kind, acting_user_id)
    rows = ctx.db.fetch_all(
        "SELECT t.certificate_id, t.enrolment_id, t.learner_id, l.full_name AS learner_name, t.course_id, c.code, "
        "c.title, t.verification_code, t.issued_on, t.final_grade_percent, t.status FROM certificates t "
        "JOIN learners l ON l.learner_id = t.learner_id JOIN courses c ON c.course_id = t.course_id "
        "WHERE (? IS NULL OR t.learner_id = ?) AND (? IS NULL OR c.instructor_id = ?) "
        "AND (? IS NULL OR t.learner_id = ?) AND (? IS NULL OR t.course_id = ?) AND (? IS NULL OR t.status = ?) "
        "AND (? IS NULL OR t.issued_on >= ?) AND (? IS NULL OR t.issued_on <= ?) "
        "ORDER BY t.issued_on DESC, t.certificate_id DESC",
        (own, own, taught, taught, learner_id, learner_id, course_id, course_id, status, status, first, first, last,
         last))
    return paginate(rows, limit, offset)


def verify_certificate(ctx, verification_code: str) -> dict:
    row = require_row(
        ctx,
        "SELECT t.certificate_id, t.enrolment_id, t.learner_id, l.full_name AS learner_name, t.course_id, c.code, "
        "c.title, t.verification_code, t.issued_on, t.final_grade_percent, t.status, t.revoked_reason "
        "FROM certificates t JOIN learners l ON l.learner_id = t.learner_id "
        "JOIN courses c ON c.course_id = t.course_id WHERE t.verification_code = ?",
        (verification_code.strip().upper(),),
        f"no certificate with verification code {verification_code!r}",
    )
    row["is_valid"] = row["status"] == "valid"
    return row


def revoke_certificate(ctx, acting_instructor_id: str, certificate_id: str, reason: str) -> dict:
    if not reason.strip():
        raise InvalidArgumentError("reason must not be empty")
    _acting_instructor(ctx, acting_instructor_id)
    row = require_row(
        ctx,
        "SELECT certificate_id, course_id, status FROM certificates WHERE certificate_id = ?",
        (certificate_id,),
        f"no certificate {certificate_id}",
    )
    require_permission(_teaches(ctx, acting_instructor_id, row["course_id"]), REVOKE_RULE)
    if row["status"] != "valid":
        raise ConflictError(f"certificate {certificate_id} is already revoked")
    ctx.db.execute("UPDATE certificates SET status = 'revoked', revoked_reason = ? WHERE certificate_id = ?",
                   (reason.strip(), certificate_id))
    return {"certificate_id": certificate_id, "status": "revoked"}


# -- course administration ---------------------------------------------------------------------------

def publish_course(ctx, acting_instructor_id: str, course_id: str) -> dict:
    _acting_instructor(ctx, acting_instructor_id)
    course = _course(ctx, course_id)
    require_permission(course["instructor_id"] == acting_instructor_id, PUBLISH_RULE)
    if course["status"] != "draft":
        raise ConflictError(f"course {course_id} is {course['status']}, not a draft")
    if course["start_date"] <= ctx.today:
        raise ConflictError(f"course {course_id} starts {course['start_date']}; move the date before publishing")
    teacher = ctx.db.fetch_one("SELECT status FROM instructors WHERE instructor_id = ?", (course["instructor_id"],))
    if teacher["status"] != "active":
        raise NotPermittedError(f"instructor {course['instructor_id']} is on leave; assign another first")
    modules = ctx.db.fetch_all(
        "SELECT m.module_id, (SELECT count(*) FROM lessons l WHERE l.module_id = m.module_id) AS lessons "
        "FROM modules m WHERE m.course_id = ? ORDER BY m.position", (course_id,))
    if not modules:
        raise ConflictError(f"course {course_id} has no modules")
    for module in modules:
        if module["lessons"] == 0:
            raise ConflictError(f"module {module['module_id']} has no lessons")
    ctx.db.execute("UPDATE courses SET status = 'published' WHERE course_id = ?", (course_id,))
    return {"course_id": course_id, "status": "published", "modules": len(modules),
            "lessons": sum(m["lessons"] for m in modules)}


def add_lesson(ctx, acting_instructor_id: str, module_id: str, title: str, kind: str, duration_minutes: int) -> dict:
    require_choice(kind, LESSON_KINDS, "kind")
    if not 1 <= duration_minutes <= 240:
        raise InvalidArgumentError("duration_minutes must be between 1 and 240")
    if not title.strip():
        raise InvalidArgumentError("title must not be empty")
    _acting_instructor(ctx, acting_instructor_id)
    module = require_row(
        ctx,
        "SELECT m.module_id, m.course_id, c.instructor_id, c.status FROM modules m "
        "JOIN courses c ON c.course_id = m.course_id WHERE m.module_id = ?",
        (module_id,),
        f"no module {module_id}",
    )
    require_permission(module["instructor_id"] == acting_instructor_id, LESSON_RULE)
    if module["status"] == "archived":
        raise ConflictError(f"course {module['course_id']} is archived")
    position = ctx.db.fetch_one("SELECT coalesce(max(position), 0) + 1 AS p FROM lessons WHERE module_id = ?",
                                (module_id,))["p"]
    lesson_id = ctx.new_id("LES")
    ctx.db.execute("INSERT INTO lessons (lesson_id, module_id, position, title, kind, duration_minutes) "
                   "VALUES (?, ?, ?, ?, ?, ?)", (lesson_id, module_id, position, title.strip(), kind, duration_minutes))
    return {"lesson_id": lesson_id, "module_id": module_id, "course_id": module["course_id"], "position": position}


def assign_instructor(ctx, acting_instructor_id: str, course_id: str, instructor_id: str) -> dict:
    _acting_instructor(ctx, acting_instructor_id)
    course = _course(ctx, course_id)
    instructor = require_row(
        ctx,
        "SELECT instructor_id, expertise, status FROM instructors WHERE instructor_id = ?",
        (instructor_id,),
        f"no instructor {instructor_id}",
    )
    require_permission(course["instructor_id"] == acting_instructor_id, ASSIGN_RULE)
    if course["status"] == "archived" or course["end_date"] < ctx.today:
        raise ConflictError(f"course {course_id} has ended")
    if instructor["status"] != "active":
        raise NotPermittedError(f"instructor {instructor_id} is on leave")
    if instructor["expertise"] != course["category"]:
        raise NotPermittedError(f"instructor {instructor_id} teaches {instructor['expertise']}, "
                                f"not {course['category']}")
    if course["instructor_id"] == instructor_id:
        raise ConflictError(f"instructor {instructor_id} already teaches {course_id}")
    ctx.db.execute("UPDATE courses SET instructor_id = ? WHERE course_id = ?", (instructor_id, course_id))
    return {"course_id": course_id, "instructor_id": instructor_id, "previous_instructor_id": course["instructor_id"]}
