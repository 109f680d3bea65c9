"""Deterministic seed for the online_learning domain: writes seed.json beside this file.

Run: python generate_seed.py
Everything comes from random.Random(SEED) and fixed dates around the domain clock
(2026-04-15T09:30:00); no wall clock, so every run writes the same file.
Near neighbours on purpose: learners sharing a name (and some a country too: only the birth date or
the email tells them apart), several runs (cohorts) of one course
code with different dates, instructors and prices, one learner with enrolments in every
state, coupons with similar codes that are expired, disabled or used up.
"""

from __future__ import annotations

import json
import random
from datetime import date, timedelta
from pathlib import Path

SEED = 41526
TODAY = date(2026, 4, 15)
CLOCK = "2026-04-15T09:30:00"
rng = random.Random(SEED)
# Separate streams for what was added later (birth dates, late sign-ups, varied free text), so that
# the main stream, and with it every id and status above, stays as it was.
people_rng = random.Random(SEED + 1)
text_rng = random.Random(SEED + 2)


def ident(prefix: str, n: int) -> str:
    return f"{prefix}-{n:05d}"


def iso(d: date) -> str:
    return d.isoformat()


def stamp(d: date, hour: int | None = None, minute: int | None = None) -> str:
    h = rng.randint(7, 22) if hour is None else hour
    m = rng.choice([0, 5, 12, 18, 24, 31, 37, 42, 48, 55]) if minute is None else minute
    return f"{d.isoformat()}T{h:02d}:{m:02d}:00"


def grade(points_pairs: list[tuple[int, int]], quiz_scores: list[int]) -> int:
    """Final grade as the tools compute it: mean of whole percents, rounded half up."""
    items = [p * 100 // mx for p, mx in points_pairs] + list(quiz_scores)
    return (sum(items) * 2 + len(items)) // (2 * len(items))


# ----------------------------------------------------------------------------- instructors
INSTRUCTORS = [
    ("Helena Marsh", "data"), ("Rohan Mehta", "data"), ("Claire Dubois", "data"), ("Tobias Wendt", "data"),
    ("Anika Patel", "programming"), ("Gareth Llewellyn", "programming"), ("Sung-min Park", "programming"),
    ("Beatriz Santos", "programming"), ("Daniel Okonkwo", "programming"), ("Lars Eriksen", "design"),
    ("Mira Kovac", "design"), ("Jonah Feld", "design"), ("Odette Laurent", "design"),
    ("Fiona Gallagher", "business"), ("Kenji Watanabe", "business"), ("Ruth Abernathy", "business"),
    ("Samir Haddad", "business"), ("Lucia Romero", "languages"), ("Akiko Mori", "languages"),
    ("Pablo Iglesias Ruiz", "languages"), ("Nora Whitcombe", "languages"), ("Victor Almeida", "data"),
    ("Greta Holm", "design"), ("Imran Siddiqui", "programming"), ("Yetunde Bakare", "business"),
    ("Colm Brennan", "data"), ("Daniel Okonkwo", "data"), ("Esther Lindgren", "languages"),
    ("Marcus Feld", "programming"), ("Paula Jimenez", "business"),
]
instructors = []
for i, (name, expertise) in enumerate(INSTRUCTORS, start=1):
    first, last = name.lower().split()[0], name.lower().split()[-1]
    email = f"{first}.{last}@faculty.learnwell.edu" if i != 27 else f"d.okonkwo.data@faculty.learnwell.edu"
    status = "on_leave" if i in (4, 12, 19, 29) else "active"
    instructors.append({"instructor_id": ident("INS", i), "full_name": name, "email": email,
                        "expertise": expertise, "status": status})
by_expertise: dict[str, list[str]] = {}
for ins in instructors:
    if ins["status"] == "active":
        by_expertise.setdefault(ins["expertise"], []).append(ins["instructor_id"])

# ----------------------------------------------------------------------------- learners
LEARNERS = [
    ("Maria Garcia", "ES"), ("Liam O'Connor", "IE"), ("Aisha Bello", "NG"), ("Chen Wei", "CN"),
    ("Sophie Martin", "FR"), ("Jonas Becker", "DE"), ("Priya Nair", "IN"), ("Ethan Walker", "US"),
    ("Emma Johansson", "SE"), ("Mateo Rossi", "IT"), ("Hana Sato", "JP"), ("Noah Williams", "US"),
    ("Olivia Brown", "GB"), ("Lucas Silva", "BR"), ("Fatima Zahra", "MA"), ("Daniel Kim", "KR"),
    ("Isabella Lopez", "MX"), ("Tom de Vries", "NL"), ("Zoe Papadopoulos", "GR"), ("Arjun Sharma", "IN"),
    ("Grace Mwangi", "KE"), ("Jakub Nowak", "PL"), ("Chloe Tremblay", "CA"), ("Ahmed Hassan", "EG"),
    ("Ana Pereira", "PT"), ("Ryan Murphy", "IE"), ("Leah Goldstein", "US"), ("Mia Schulz", "DE"),
    ("Oscar Lindberg", "SE"), ("Nina Petrova", "BG"), ("Kofi Owusu", "GH"), ("Elif Yilmaz", "TR"),
    ("Samuel Rivera", "US"), ("Julia Novak", "CZ"), ("Ravi Iyer", "SG"), ("Camille Roux", "BE"),
    # near neighbours: same names, other people
    ("Maria Garcia", "MX"), ("Maria Garcia", "US"), ("Chen Wei", "SG"), ("Daniel Kim", "US"),
    ("Olivia Brown", "AU"), ("Priya Nair", "GB"), ("Ethan Walker", "CA"), ("Sophie Martin", "CA"),
]


def birth_date() -> str:
    """Adult learners, mostly 20 to 45 years old, a few older."""
    age = people_rng.choice((22, 24, 26, 27, 29, 31, 33, 35, 38, 41, 44, 52, 58)) + people_rng.randint(0, 2)
    return iso(date(TODAY.year - age, people_rng.randint(1, 12), people_rng.randint(1, 28)))


EMAIL_DOMAINS = ("gmail.com", "outlook.com", "proton.me", "yahoo.com", "icloud.com", "mail.com")
learners = []
used: set[str] = set()
for i, (name, country) in enumerate(LEARNERS, start=1):
    parts = name.lower().replace("'", "").split()
    base = f"{parts[0]}.{parts[-1]}"
    email = f"{base}@{rng.choice(EMAIL_DOMAINS)}"
    while email in used:
        email = f"{base}{rng.randint(2, 98)}@{rng.choice(EMAIL_DOMAINS)}"
    used.add(email)
    joined = TODAY - timedelta(days=rng.randint(60, 900))
    status = "suspended" if i in (15, 31, 38, 44) else "active"
    learners.append({"learner_id": ident("LRN", i), "full_name": name, "email": email,
                     "date_of_birth": birth_date(), "country": country, "status": status, "joined_on": iso(joined)})
active_learners = [l["learner_id"] for l in learners if l["status"] == "active"]

# ----------------------------------------------------------------------------- catalogue
# code, title, category, level, price cents, prerequisite code, modules (title, lessons)
CATALOGUE = [
    ("DS-101", "Data Analysis with Python", "data", "beginner", 14900, None,
     ["Working with pandas", "Cleaning messy data", "Visual storytelling"]),
    ("DS-150", "SQL for Analysts", "data", "beginner", 9900, None,
     ["Selecting and filtering", "Joins and aggregation", "Window functions"]),
    ("DS-201", "Machine Learning Foundations", "data", "intermediate", 24900, "DS-101",
     ["Regression models", "Classification", "Model evaluation"]),
    ("DS-301", "Deep Learning in Practice", "data", "advanced", 34900, "DS-201",
     ["Neural network basics", "Convolutional networks", "Sequence models"]),
    ("PR-101", "Python Programming Essentials", "programming", "beginner", 12900, None,
     ["Variables and control flow", "Functions and modules", "Files and errors"]),
    ("PR-201", "Web Development with Django", "programming", "intermediate", 19900, "PR-101",
     ["Models and migrations", "Views and templates", "Deploying a site"]),
    ("PR-210", "JavaScript and the Modern Web", "programming", "intermediate", 17900, None,
     ["Language fundamentals", "The DOM and events", "Async JavaScript"]),
    ("PR-301", "Distributed Systems Design", "programming", "advanced", 29900, "PR-201",
     ["Consistency and replication", "Messaging and queues", "Failure handling"]),
    ("DG-101", "UX Design Fundamentals", "design", "beginner", 11900, None,
     ["User research", "Wireframing", "Usability testing"]),
    ("DG-120", "Typography for Screens", "design", "beginner", 7900, None,
     ["Type anatomy", "Pairing typefaces", "Responsive type"]),
    ("DG-201", "Interaction Design Studio", "design", "intermediate", 18900, "DG-101",
     ["Prototyping flows", "Micro-interactions", "Design critique"]),
    ("BU-050", "Study Skills for Online Learners", "business", "beginner", 0, None,
     ["Planning your week", "Active reading", "Writing clearly"]),
    ("BU-101", "Project Management Essentials", "business", "beginner", 9900, None,
     ["Scoping a project", "Scheduling and risk", "Closing and review"]),
    ("BU-150", "Financial Accounting Basics", "business", "beginner", 8900, None,
     ["The balance sheet", "Income statements", "Cash flow"]),
    ("BU-201", "Product Management in Practice", "business", "intermediate", 21900, "BU-101",
     ["Discovery", "Roadmaps", "Metrics that matter"]),
    ("LA-101", "Spanish for Beginners", "languages", "beginner", 6900, None,
     ["Greetings and introductions", "Everyday verbs", "Ordering and asking"]),
    ("LA-110", "Business English Writing", "languages", "beginner", 5900, None,
     ["Clear emails", "Reports and summaries", "Persuasive proposals"]),
    ("LA-201", "Spanish Conversation", "languages", "intermediate", 8900, "LA-101",
     ["Telling stories in the past", "Opinions and debate", "Travel and culture"]),
]
LESSON_WORDS = {
    "video": ("Walkthrough", "Lecture", "Demo"),
    "reading": ("Notes", "Case study", "Reading"),
    "lab": ("Lab", "Exercise", "Workshop"),
}
WINTER = (date(2025, 11, 3), date(2026, 1, 30))
SPRING = (date(2026, 2, 9), date(2026, 5, 22))
SUMMER = (date(2026, 5, 11), date(2026, 8, 14))
WINTER_CODES = ("DS-101", "DS-201", "PR-101", "DG-101", "BU-101", "LA-101")
DRAFT_SUMMER = ("DS-301", "PR-301", "DG-120")  # summer runs not yet published

courses: list[dict] = []
modules: list[dict] = []
lessons: list[dict] = []
assignments: list[dict] = []
quizzes: list[dict] = []
run_of: dict[str, str] = {}
course_meta: dict[str, dict] = {}
mod_n = les_n = asg_n = quiz_n = 0


def add_course(entry: tuple, run: str, span: tuple[date, date]) -> None:
    global mod_n, les_n, asg_n, quiz_n
    code, title, category, level, price, prereq, module_titles = entry
    cid = ident("CRS", len(courses) + 1)
    start, end = span
    if run == "winter":
        status = "archived" if code in ("BU-101", "LA-101") else "published"
    elif run == "summer" and code in DRAFT_SUMMER:
        status = "draft"
    else:
        status = "published"
    run_price = price if run != "summer" or price == 0 else price + (1000 if code.startswith("DS") else 0)
    instructor = rng.choice(by_expertise[category])
    seat_limit = rng.choice((20, 25, 30, 40, 50, 60))
    courses.append({"course_id": cid, "code": code, "title": title, "category": category, "level": level,
                    "instructor_id": instructor, "prerequisite_code": prereq, "price_cents": run_price,
                    "seat_limit": seat_limit, "seats_taken": 0, "start_date": iso(start), "end_date": iso(end),
                    "pass_mark_percent": 60 if level == "beginner" else (65 if level == "intermediate" else 70),
                    "status": status})
    run_of[cid] = run
    course_meta[cid] = {"code": code, "assignments": [], "quizzes": []}
    # the draft run of DG-120 has no lessons in its last module; PR-301's draft run has no modules at all
    if status == "draft" and code == "PR-301":
        return
    weeks = (end - start).days // 7
    for pos, mtitle in enumerate(module_titles, start=1):
        mod_n += 1
        mid = ident("MOD", mod_n)
        modules.append({"module_id": mid, "course_id": cid, "position": pos, "title": mtitle})
        n_lessons = 0 if (status == "draft" and code == "DG-120" and pos == 3) else rng.choice((1, 2, 2))
        for lpos in range(1, n_lessons + 1):
            les_n += 1
            kind = rng.choice(("video", "video", "reading", "lab"))
            lessons.append({"lesson_id": ident("LES", les_n), "module_id": mid, "position": lpos,
                            "title": f"{mtitle}: {rng.choice(LESSON_WORDS[kind])} {lpos}", "kind": kind,
                            "duration_minutes": rng.choice((12, 18, 25, 30, 45, 60, 90))})
        if pos in (1, 3) and status != "draft":
            asg_n += 1
            due = start + timedelta(days=7 * (weeks * pos // 3) - 3)
            a = {"assignment_id": ident("ASG", asg_n), "course_id": cid, "module_id": mid,
                 "title": f"{mtitle} project" if pos == 3 else f"{mtitle} exercise set",
                 "max_points": rng.choice((20, 50, 100)) if pos == 1 else 100, "due_date": iso(due),
                 "grace_days": rng.choice((0, 2, 3, 7))}
            assignments.append(a)
            course_meta[cid]["assignments"].append(a)
    if status != "draft":
        n_quiz = 2 if code in ("DS-101", "PR-101", "LA-101") else 1
        for q in range(1, n_quiz + 1):
            quiz_n += 1
            qz = {"quiz_id": ident("QUZ", quiz_n), "course_id": cid,
                  "title": f"{title}: {'midterm' if q == 1 and n_quiz == 2 else 'final'} quiz",
                  "question_count": rng.choice((10, 15, 20, 25)), "pass_percent": rng.choice((60, 70, 70, 80)),
                  "max_attempts": rng.choice((1, 2, 3, 3)), "time_limit_minutes": rng.choice((15, 20, 30, 45))}
            quizzes.append(qz)
            course_meta[cid]["quizzes"].append(qz)


for entry in CATALOGUE:
    if entry[0] in WINTER_CODES:
        add_course(entry, "winter", WINTER)
for entry in CATALOGUE:
    add_course(entry, "spring", SPRING)
for entry in CATALOGUE:
    add_course(entry, "summer", SUMMER)
course_by_id = {c["course_id"]: c for c in courses}

# ----------------------------------------------------------------------------- coupons
coupons: list[dict] = []


def add_coupon(code: str, pct: int, course_id: str | None, vfrom: date, vuntil: date, max_uses: int,
               status: str = "active") -> str:
    cid = ident("CPN", len(coupons) + 1)
    coupons.append({"coupon_id": cid, "code": code, "percent_off": pct, "course_id": course_id,
                    "valid_from": iso(vfrom), "valid_until": iso(vuntil), "max_uses": max_uses, "times_used": 0,
                    "status": status})
    return cid


def course_of(code: str, run: str) -> str:
    return next(c["course_id"] for c in courses if c["code"] == code and run_of[c["course_id"]] == run)


add_coupon("WELCOME10", 10, None, date(2025, 9, 1), date(2026, 12, 31), 500)
add_coupon("WELCOME15", 15, None, date(2025, 9, 1), date(2026, 1, 31), 200)           # expired
add_coupon("SPRING20", 20, None, date(2026, 1, 15), date(2026, 3, 31), 150)           # expired
add_coupon("SUMMER20", 20, None, date(2026, 4, 1), date(2026, 6, 30), 100)
add_coupon("SUMMER25", 25, None, date(2026, 4, 1), date(2026, 6, 30), 4)              # nearly used up
add_coupon("STAFF100", 100, None, date(2026, 1, 1), date(2026, 12, 31), 20, "disabled")
add_coupon("SCHOLAR100", 100, None, date(2026, 1, 1), date(2026, 12, 31), 10)
add_coupon("EARLYBIRD30", 30, None, date(2026, 3, 1), date(2026, 4, 30), 60)
add_coupon("EARLYBIRD35", 35, None, date(2026, 3, 1), date(2026, 4, 30), 2)            # will be used up
for code, run, pct, tag in [("DS-101", "summer", 25, "PANDAS25"), ("DS-201", "summer", 15, "ML15"),
                            ("DS-201", "spring", 15, "ML15-SPRING"), ("PR-101", "summer", 20, "PYTHON20"),
                            ("PR-201", "summer", 10, "DJANGO10"), ("PR-210", "summer", 20, "JS20"),
                            ("DG-101", "summer", 30, "UX30"), ("DG-201", "summer", 15, "STUDIO15"),
                            ("BU-101", "summer", 20, "PM20"), ("BU-150", "summer", 10, "LEDGER10"),
                            ("BU-201", "summer", 25, "PRODUCT25"), ("LA-101", "summer", 50, "HOLA50"),
                            ("LA-201", "summer", 20, "CHARLA20"), ("LA-110", "summer", 15, "WRITE15"),
                            ("DS-150", "summer", 10, "QUERY10"), ("DS-150", "spring", 10, "QUERY10-SPRING"),
                            ("PR-101", "spring", 20, "PYTHON20-SPRING"), ("DG-120", "spring", 15, "SERIF15"),
                            ("LA-101", "spring", 50, "HOLA50-SPRING"), ("BU-150", "spring", 10, "LEDGER10-SPRING"),
                            ("DS-101", "winter", 25, "PANDAS25-WINTER"), ("PR-101", "winter", 20, "PYTHON20-WINTER"),
                            ("DG-101", "winter", 30, "UX30-WINTER")]:
    if run == "winter":
        add_coupon(tag, pct, course_of(code, run), date(2025, 9, 15), date(2025, 11, 10), 40)
    elif run == "spring":
        add_coupon(tag, pct, course_of(code, run), date(2025, 12, 15), date(2026, 2, 20), 40,
                   "disabled" if tag == "SERIF15" else "active")
    else:
        add_coupon(tag, pct, course_of(code, run), date(2026, 3, 20), date(2026, 5, 31),
                   3 if tag == "UX30" else 40)
coupon_by_id = {c["coupon_id"]: c for c in coupons}

# ----------------------------------------------------------------------------- enrolments and coursework
enrolments: list[dict] = []
submissions: list[dict] = []
attempts: list[dict] = []
certificates: list[dict] = []
refunds: list[dict] = []
completed_codes: dict[str, set[str]] = {}  # learner -> codes completed
FEEDBACK = ("Clear structure and well-argued conclusions.", "Good work; tighten the error handling.",
            "Solid analysis, but cite your data sources.", "Excellent attention to detail.",
            "Meets the brief; the second part needs more depth.", "Nice visuals; explain the outliers.",
            "Strong start; revisit the edge cases we discussed.", "Well organised and easy to follow.")
REFUND_REASONS = ("Schedule conflict with work", "Course level was not what I expected",
                  "Enrolled in the wrong cohort by mistake", "Moving abroad and cannot continue",
                  "Duplicate payment for the same course", "Health reasons", "Employer will no longer sponsor")
REPO_HOSTS = ("https://github.com/", "https://gitlab.com/", "https://drive.learnwell.edu/share/")


def usable_coupons(cid: str, on: date) -> list[dict]:
    out = []
    for c in coupons:
        if c["status"] != "active" or c["course_id"] not in (None, cid):
            continue
        if not (c["valid_from"] <= iso(on) <= c["valid_until"]) or c["times_used"] >= c["max_uses"]:
            continue
        if c["percent_off"] == 100 and course_by_id[cid]["price_cents"] == 0:
            continue
        out.append(c)
    return out


def new_enrolment(learner_id: str, cid: str, status: str, enrolled_on: date, coupon: bool) -> dict:
    course = course_by_id[cid]
    price = course["price_cents"]
    cpn = None
    discount = 0
    if coupon and price > 0:
        options = [c for c in usable_coupons(cid, enrolled_on) if c["percent_off"] < 100]
        if options:
            cpn = rng.choice(options)
            discount = price * cpn["percent_off"] // 100
            cpn["times_used"] += 1
    due = price - discount
    if due == 0 and status == "pending_payment":
        status = "active"  # nothing to pay: active at once, as enrol_learner does
    paid_on = None
    paid = 0
    method = None
    if status in ("active", "completed", "withdrawn_paid"):
        paid_on = enrolled_on + timedelta(days=rng.randint(0, 3))
        paid = due
        method = rng.choice(("card", "card", "paypal", "bank_transfer")) if due else ("coupon" if cpn else None)
    e = {"enrolment_id": ident("ENR", len(enrolments) + 1), "learner_id": learner_id, "course_id": cid,
         "status": "withdrawn" if status.startswith("withdrawn") else status, "enrolled_on": iso(enrolled_on),
         "list_price_cents": price, "coupon_id": cpn["coupon_id"] if cpn else None, "discount_cents": discount,
         "paid_cents": paid, "paid_on": iso(paid_on) if paid_on else None, "payment_method": method,
         "refunded_cents": 0, "completed_on": None, "final_grade_percent": None}
    enrolments.append(e)
    if e["status"] != "withdrawn":
        course["seats_taken"] += 1
    return e


def submit(e: dict, a: dict, when: date, status: str, quality: float) -> tuple[int, int] | None:
    course = course_by_id[e["course_id"]]
    due = date.fromisoformat(a["due_date"])
    late = when > due
    sid = ident("SUB", len(submissions) + 1)
    raw = points = graded_by = graded_on = feedback = None
    if status == "graded":
        raw = max(0, min(a["max_points"], round(a["max_points"] * quality)))
        penalty = (a["max_points"] * 10 + 99) // 100 if late else 0
        points = max(0, raw - penalty)
        graded_by = course["instructor_id"]
        graded_on = iso(min(TODAY - timedelta(days=1), when + timedelta(days=rng.randint(2, 9))))
        feedback = rng.choice(FEEDBACK)
    elif status == "returned":
        graded_by = course["instructor_id"]
        feedback = "Please resubmit: " + rng.choice(("the notebook does not run end to end.",
                                                    "part two is missing.", "the file link is private."))
    learner = e["learner_id"]
    handle = learner.lower().replace("-", "")
    submissions.append({"submission_id": sid, "assignment_id": a["assignment_id"], "enrolment_id": e["enrolment_id"],
                        "learner_id": learner, "submitted_at": stamp(when), "revision": 1,
                        "content_url": f"{rng.choice(REPO_HOSTS)}{handle}/{a['assignment_id'].lower()}",
                        "is_late": 1 if late else 0, "status": status, "raw_points": raw, "points": points,
                        "graded_by": graded_by, "graded_on": graded_on, "feedback": feedback})
    return (points, a["max_points"]) if status == "graded" else None


def take_quiz(e: dict, q: dict, when: date, outcomes: list[str]) -> int | None:
    best = None
    for n, outcome in enumerate(outcomes[: q["max_attempts"]], start=1):
        started = stamp(when + timedelta(days=n - 1))
        row = {"attempt_id": ident("ATT", len(attempts) + 1), "quiz_id": q["quiz_id"],
               "enrolment_id": e["enrolment_id"], "attempt_number": n, "started_at": started,
               "submitted_at": None, "correct_answers": None, "score_percent": None, "status": "in_progress"}
        if outcome != "in_progress":
            need = -(-q["question_count"] * q["pass_percent"] // 100)
            if outcome == "passed":
                correct = rng.randint(need, q["question_count"])
            else:
                correct = rng.randint(max(0, need - 6), need - 1)
            score = correct * 100 // q["question_count"]
            h, m = int(started[11:13]), int(started[14:16])
            minutes = h * 60 + m + rng.randint(5, q["time_limit_minutes"])
            minutes = min(minutes, 23 * 60 + 59)
            row.update({"submitted_at": f"{started[:10]}T{minutes // 60:02d}:{minutes % 60:02d}:00",
                        "correct_answers": correct, "score_percent": score,
                        "status": "passed" if score >= q["pass_percent"] else "failed"})
            if row["status"] == "passed":
                best = max(best or 0, score)
        attempts.append(row)
    return best


def complete(e: dict, finished: date) -> None:
    meta = course_meta[e["course_id"]]
    pairs = []
    for a in meta["assignments"]:
        d = date.fromisoformat(a["due_date"]) - timedelta(days=rng.randint(0, 4))
        pairs.append(submit(e, a, d, "graded", rng.uniform(0.66, 1.0)))
    scores = []
    for q in meta["quizzes"]:
        best = take_quiz(e, q, finished - timedelta(days=rng.randint(8, 20)),
                         ["failed", "passed"] if q["max_attempts"] > 1 and rng.random() < 0.3 else ["passed"])
        scores.append(best)
    final = grade(pairs, scores)
    course = course_by_id[e["course_id"]]
    if final < course["pass_mark_percent"]:
        final = course["pass_mark_percent"]  # never happens with the ranges above; keeps the seed coherent
    e.update({"status": "completed", "completed_on": iso(finished), "final_grade_percent": final})
    cert_n = len(certificates) + 1
    certificates.append({"certificate_id": ident("CRT", cert_n), "enrolment_id": e["enrolment_id"],
                         "learner_id": e["learner_id"], "course_id": e["course_id"],
                         "verification_code": f"OL-{meta['code'].replace('-', '')}-{cert_n:05d}",
                         "issued_on": iso(finished), "final_grade_percent": final, "status": "valid",
                         "revoked_reason": None})
    completed_codes.setdefault(e["learner_id"], set()).add(meta["code"])


def pick_learners(cid: str, k: int, exclude: set[str]) -> list[str]:
    prereq = course_by_id[cid]["prerequisite_code"]
    pool = [l for l in active_learners if l not in exclude]
    if prereq is not None:
        pool = [l for l in pool if prereq in completed_codes.get(l, set())]
    rng.shuffle(pool)
    return pool[:k]


# Winter runs (DS-101 before DS-201 so prerequisites chain): mostly completed with certificates.
for c in [c for c in courses if run_of[c["course_id"]] == "winter"]:
    cid = c["course_id"]
    chosen = pick_learners(cid, 8, set()) if c["prerequisite_code"] is None else []
    if c["code"] == "DS-201":  # DS-201 winter learners completed DS-101 before (outside the data) or now
        chosen = [l for l in active_learners if "DS-101" in completed_codes.get(l, set())][:5] + \
                 ["LRN-00004", "LRN-00020"]
        chosen = list(dict.fromkeys(chosen))
    for j, lid in enumerate(chosen):
        enrolled = date(2025, 10, 1) + timedelta(days=rng.randint(0, 30))
        if j == len(chosen) - 1:
            e = new_enrolment(lid, cid, "withdrawn_paid", enrolled, coupon=False)
            continue
        e = new_enrolment(lid, cid, "active", enrolled, coupon=rng.random() < 0.4)
        complete(e, date(2026, 1, 30) + timedelta(days=rng.randint(-10, 2)))
# Anchor learners: LRN-00001 (Maria Garcia, ES) completed DS-101; LRN-00004 (Chen Wei) completed PR-101 too.
for lid, code in (("LRN-00001", "DS-101"), ("LRN-00004", "PR-101"), ("LRN-00008", "BU-101"),
                  ("LRN-00008", "DG-101")):
    if code not in completed_codes.get(lid, set()):
        cid = course_of(code, "winter")
        e = new_enrolment(lid, cid, "active", date(2025, 10, 20), coupon=False)
        complete(e, date(2026, 1, 28))

# Spring runs: in progress.
for c in [c for c in courses if run_of[c["course_id"]] == "spring"]:
    cid = c["course_id"]
    k = 3 if c["prerequisite_code"] else rng.randint(4, 6)
    chosen = pick_learners(cid, k, set())
    for j, lid in enumerate(chosen):
        enrolled = date(2026, 1, 10) + timedelta(days=rng.randint(0, 30))
        state = "active"
        if j == 4:
            state = "withdrawn_paid"
        elif j == 5:
            state = "pending_payment"
        e = new_enrolment(lid, cid, state, enrolled, coupon=rng.random() < 0.35)
        if e["status"] != "active":
            continue
        meta = course_meta[cid]
        for a in meta["assignments"]:
            due = date.fromisoformat(a["due_date"])
            if due < TODAY:
                roll = rng.random()
                if roll < 0.12:
                    continue  # missed it
                when = due + timedelta(days=rng.randint(1, max(1, a["grace_days"]))) if roll < 0.25 else \
                    due - timedelta(days=rng.randint(0, 5))
                status = "graded" if roll < 0.75 else ("submitted" if roll < 0.9 else "returned")
                submit(e, a, when, status, rng.uniform(0.45, 1.0))
            elif rng.random() < 0.15:
                submit(e, a, TODAY - timedelta(days=rng.randint(1, 6)), "submitted", 0)
        for q in meta["quizzes"]:
            roll = rng.random()
            if roll < 0.35:
                continue
            outcomes = ["passed"] if roll < 0.6 else (["failed", "passed"] if roll < 0.75 else
                                                       (["failed"] if roll < 0.9 else ["in_progress"]))
            take_quiz(e, q, TODAY - timedelta(days=rng.randint(3, 30)), outcomes)

# Summer runs (not started yet): pending payment, paid, withdrawn; drafts have no enrolments.
for c in [c for c in courses if run_of[c["course_id"]] == "summer" and c["status"] == "published"]:
    cid = c["course_id"]
    k = 2 if c["prerequisite_code"] else rng.randint(2, 4)
    taken = {e["learner_id"] for e in enrolments if course_by_id[e["course_id"]]["code"] == c["code"]
             and e["status"] in ("active", "pending_payment")}
    chosen = pick_learners(cid, k, taken)
    for j, lid in enumerate(chosen):
        enrolled = TODAY - timedelta(days=rng.randint(1, 20))
        state = ("pending_payment", "active", "active", "withdrawn_paid")[j % 4]
        new_enrolment(lid, cid, state, enrolled, coupon=rng.random() < 0.5)

# A learner with enrolments in every state: LRN-00001 Maria Garcia (ES).
ds201_summer = course_of("DS-201", "summer")
for cid, state in ((course_of("PR-210", "spring"), "active"), (course_of("BU-150", "summer"), "pending_payment"),
                   (course_of("LA-110", "summer"), "withdrawn_paid"), (ds201_summer, "active")):
    if not any(e["learner_id"] == "LRN-00001" and e["course_id"] == cid for e in enrolments):
        new_enrolment("LRN-00001", cid, state, TODAY - timedelta(days=rng.randint(2, 25)), coupon=False)
# Her namesake LRN-00037 (Maria Garcia, MX) is active in the spring DS-101 run.
if not any(e["learner_id"] == "LRN-00037" and e["course_id"] == course_of("DS-101", "spring") for e in enrolments):
    new_enrolment("LRN-00037", course_of("DS-101", "spring"), "active", date(2026, 1, 20), coupon=False)

# One summer run is full: DG-101 summer gets seat_limit = seats_taken.
ux_summer = course_by_id[course_of("DG-101", "summer")]
ux_summer["seat_limit"] = max(ux_summer["seats_taken"], 1)
if ux_summer["seats_taken"] == 0:
    new_enrolment("LRN-00009", ux_summer["course_id"], "active", TODAY - timedelta(days=5), coupon=False)

# ----------------------------------------------------------------------------- refunds
for e in enrolments:
    if e["status"] == "withdrawn" and e["paid_cents"] > 0:
        rq = date.fromisoformat(e["paid_on"]) + timedelta(days=rng.randint(1, 10))
        refunds.append({"refund_id": ident("RFD", len(refunds) + 1), "enrolment_id": e["enrolment_id"],
                        "amount_cents": e["paid_cents"], "reason": rng.choice(REFUND_REASONS), "status": "approved",
                        "requested_on": iso(rq), "decided_on": iso(rq + timedelta(days=rng.randint(0, 3))),
                        "decision_note": "Within the refund window; full refund to the original payment method."})
        e["refunded_cents"] = e["paid_cents"]
active_paid = [e for e in enrolments if e["status"] == "active" and e["paid_cents"] > 0]
spring_paid = [e for e in active_paid if run_of[e["course_id"]] == "spring"]
summer_paid = [e for e in active_paid if run_of[e["course_id"]] == "summer"]
completed_paid = [e for e in enrolments if e["status"] == "completed" and e["paid_cents"] > 0]
for e in rng.sample(spring_paid, 8):  # asked too late: rejected
    rq = TODAY - timedelta(days=rng.randint(3, 30))
    refunds.append({"refund_id": ident("RFD", len(refunds) + 1), "enrolment_id": e["enrolment_id"],
                    "amount_cents": e["paid_cents"], "reason": rng.choice(REFUND_REASONS), "status": "rejected",
                    "requested_on": iso(rq), "decided_on": iso(rq + timedelta(days=1)),
                    "decision_note": "Outside the refund window: the course started and 14 days have passed since payment."})
for e in rng.sample(completed_paid, 4):
    rq = date.fromisoformat(e["completed_on"]) + timedelta(days=rng.randint(2, 20))  # reason varied below
    refunds.append({"refund_id": ident("RFD", len(refunds) + 1), "enrolment_id": e["enrolment_id"],
                    "amount_cents": e["paid_cents"] // 2, "reason": "Course content was outdated",
                    "status": "rejected", "requested_on": iso(rq), "decided_on": iso(rq + timedelta(days=2)),
                    "decision_note": "A certificate was issued for this enrolment."})
for e in summer_paid[:3]:  # goodwill partial refunds already approved
    part = e["paid_cents"] // 4
    if part > 0:
        rq = date.fromisoformat(e["paid_on"]) + timedelta(days=1)
        refunds.append({"refund_id": ident("RFD", len(refunds) + 1), "enrolment_id": e["enrolment_id"],
                        "amount_cents": part, "reason": "Charged the full price instead of the early-bird price",
                        "status": "approved", "requested_on": iso(rq), "decided_on": iso(rq + timedelta(days=1)),
                        "decision_note": "Price difference refunded."})
        e["refunded_cents"] = part
for e in summer_paid[3:11]:  # pending, within the window
    remaining = e["paid_cents"] - e["refunded_cents"]
    if remaining <= 0:
        continue
    rq = TODAY - timedelta(days=rng.randint(0, 3))
    refunds.append({"refund_id": ident("RFD", len(refunds) + 1), "enrolment_id": e["enrolment_id"],
                    "amount_cents": remaining if rng.random() < 0.7 else remaining // 2,
                    "reason": rng.choice(REFUND_REASONS), "status": "pending", "requested_on": iso(rq),
                    "decided_on": None, "decision_note": None})

# Two late requests (after the window) that the instructor settled with a goodwill half refund instead
# of a rejection: a live school approves most requests, late ones included now and then.
GOODWILL = {
    "RFD-00022": ("I know the 14 days are over, but I was in hospital for most of March. Could you refund at least half?",
                  "Outside the window, but the hospital letter checks out: goodwill refund of half the fee."),
    "RFD-00025": ("Past the refund window, I realise. My employer moved me to night shifts; would a partial refund be possible?",
                  "Late request; approved a 50% goodwill refund as the learner stopped after the first module."),
}
for r in refunds:
    if r["refund_id"] in GOODWILL:
        e = next(x for x in enrolments if x["enrolment_id"] == r["enrolment_id"])
        r["amount_cents"] = e["paid_cents"] // 2
        r["reason"], r["decision_note"] = GOODWILL[r["refund_id"]]
        r["status"] = "approved"
        e["refunded_cents"] = r["amount_cents"]

# Two certificates revoked for academic misconduct.
for cert in certificates[3:5]:
    cert["status"] = "revoked"
    cert["revoked_reason"] = "Plagiarised final project confirmed by the academic integrity panel."

# ----------------------------------------------------------------------------- late sign-ups
# People who joined in the last weeks and have not enrolled yet. Each shares a name and a country
# with an earlier learner (another person: another birth date and email), as in a live school.
for name, country in (("Maria Garcia", "ES"), ("Chen Wei", "CN"), ("Sophie Martin", "FR"), ("Daniel Kim", "KR")):
    parts = name.lower().split()
    email = f"{parts[0]}{parts[-1]}.{people_rng.randint(70, 99)}@{people_rng.choice(EMAIL_DOMAINS)}"
    assert email not in used
    used.add(email)
    born = birth_date()
    assert all(born != l["date_of_birth"] for l in learners if l["full_name"] == name)
    learners.append({"learner_id": ident("LRN", len(learners) + 1), "full_name": name, "email": email,
                     "date_of_birth": born, "country": country, "status": "active",
                     "joined_on": iso(TODAY - timedelta(days=people_rng.randint(3, 40)))})

# ----------------------------------------------------------------------------- free text
# Feedback, refund reasons and decisions as people write them: varied, tied to the row.
PRAISE = ("Clear structure and well-argued conclusions.", "Good work overall.", "Excellent attention to detail.",
          "Well organised and easy to follow.", "A thoughtful submission.", "Solid effort.", "Nicely done.",
          "This reads well and the reasoning holds up.", "Careful, complete work.", "A confident piece of work.",
          "You clearly put time into this.", "Strong start.")
ADVICE = ("Tighten the error handling in the second part.", "Cite your data sources next time.",
          "Explain the outliers rather than dropping them.", "The conclusion needs one more paragraph.",
          "Revisit the edge cases we discussed in the live session.", "Label the axes on every chart.",
          "Keep functions shorter; two of them do three jobs each.", "Add a short summary at the top.",
          "Check the units in the last table.", "Compare your result against the baseline from week two.",
          "Name your variables for what they hold.", "Proofread once more for small slips.",
          "The second part needs more depth.", "Say why you chose this approach over the alternative.")
CLOSING = ("", "", "", " See you in the next module.", " Keep it up.", " Happy to discuss in office hours.",
           " Well within the brief.", " Good progress since the last assignment.")
RETURN_REASONS = ("the notebook does not run end to end", "part two is missing", "the file link is private",
                  "the upload is the template, not your work", "the repository is empty on the main branch",
                  "the PDF is cut off after page three", "the dataset path points to your own laptop",
                  "the link asks for a login we do not have")
REASONS = (
    "Schedule conflict with work", "The level of {code} is higher than I expected", "Enrolled in the wrong cohort by mistake",
    "Moving abroad next month and won't have steady internet", "I was charged twice for {code}", "Health reasons",
    "My employer will no longer sponsor the course", "New job starts the same week as the course",
    "Family emergency; I cannot keep up this term", "The live sessions are at 3 a.m. in my time zone",
    "Bought {code} for a colleague who had already taken it", "Found the material too advanced for now",
    "My laptop broke and I can't do the labs", "Our team training budget was cut this quarter",
    "I meant to book a later run, not this one", "Studying for my university finals instead",
    "Having a baby in May, so the timing no longer works", "I already covered most of this at work",
    "Signed up on impulse during the sale; I won't have time", "Doctor told me to cut down on screen time for a while",
    "My visa appointment clashes with the first four weeks", "Company is paying for a different provider now",
    "Caring for my father after his operation", "Can't afford it right now after an unexpected car repair",
    "Switched careers, {code} is no longer relevant for me", "My professional certification exams overlap the whole run",
    "The course description didn't mention the weekly group project", "Relocating for work, hours will be unpredictable",
    "Wanted the Spanish-language version of {code}", "I enrolled my account instead of my daughter's",
    "Too many evening commitments this season", "Going through a house move and have no desk to work at",
)
METHOD_WORDS = {"card": "card", "paypal": "PayPal account", "bank_transfer": "bank account", "coupon": "coupon"}
for s in submissions:
    if s["status"] == "graded":
        s["feedback"] = f"{text_rng.choice(PRAISE)} {text_rng.choice(ADVICE)}{text_rng.choice(CLOSING)}"
    elif s["status"] == "returned":
        s["feedback"] = f"Please resubmit: {text_rng.choice(RETURN_REASONS)}."
enrolment_by_id = {e["enrolment_id"]: e for e in enrolments}
reason_deck: list[str] = []
for r in refunds:
    e = enrolment_by_id[r["enrolment_id"]]
    if r["reason"] in REFUND_REASONS:
        if not reason_deck:  # deal every reason once before any repeats
            reason_deck = list(REASONS)
            text_rng.shuffle(reason_deck)
        r["reason"] = reason_deck.pop().format(code=course_by_id[e["course_id"]]["code"])
    elif r["reason"] == "Course content was outdated":
        r["reason"] = text_rng.choice(("Course content was outdated", "The videos use an old version of the library",
                                       "I expected more live sessions", "Half the labs repeat the beginner course"))
    dollars = f"USD {r['amount_cents'] // 100}.{r['amount_cents'] % 100:02d}"
    if r["status"] == "approved" and r["amount_cents"] == e["paid_cents"]:
        days = (date.fromisoformat(r["requested_on"]) - date.fromisoformat(e["paid_on"])).days
        r["decision_note"] = text_rng.choice((
            f"Asked {days} days after payment, inside the 14-day window; {dollars} back to the {METHOD_WORDS[e['payment_method']]}.",
            f"Within the refund window ({days} days after payment). Full refund of {dollars} issued.",
            f"Full refund of {dollars} approved; the seat was released.",
            f"Approved: requested {days} days after paying, before the run started. {dollars} refunded."))
    elif r["status"] == "rejected" and e["status"] == "completed":
        r["decision_note"] = text_rng.choice((
            f"A certificate was issued on {e['completed_on']} for this enrolment; completed courses are not refunded.",
            "The course was completed with a certificate, so no refund is possible.",
            f"Declined: the learner finished the course on {e['completed_on']}."))
    elif r["status"] == "rejected":
        r["decision_note"] = text_rng.choice((
            "Outside the refund window: the course started and 14 days have passed since payment.",
            f"Declined: paid on {e['paid_on']} and the run had already started; the window has closed.",
            f"Requested on {r['requested_on']}, after the refund window closed. A transfer to a later run was offered.",
            "Too late for a refund under the policy; the learner may withdraw or transfer instead."))

seed = {
    "learners": learners, "instructors": instructors, "courses": courses, "modules": modules, "lessons": lessons,
    "coupons": coupons, "enrolments": enrolments, "assignments": assignments, "submissions": submissions,
    "quizzes": quizzes, "quiz_attempts": attempts, "certificates": certificates, "refunds": refunds,
}
Path(__file__).with_name("seed.json").write_text(json.dumps(seed, indent=1, ensure_ascii=False) + "\n")
if __name__ == "__main__":
    for table, rows in seed.items():
        print(f"{table}: {len(rows)}")
    print("total:", sum(len(r) for r in seed.values()))
