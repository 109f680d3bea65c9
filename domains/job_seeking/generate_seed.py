"""Deterministic seed for the job_seeking domain: writes seed.json beside this file.

Run: python generate_seed.py
Everything comes from random.Random(SEED) and fixed dates around the domain clock
(2026-05-12T10:30:00, a Tuesday); there is no wall clock, so every run writes the same file.

The world: job seekers (candidates) with skills and resume versions apply to postings of
companies; applications move applied -> screening -> interview -> offer -> hired (or end
rejected / withdrawn); interviews carry feedback, offers carry a salary negotiation,
employees refer candidates, and candidates keep follow-up reminders.

Near neighbours are made on purpose: candidates with the same name in different cities,
companies with nearly the same name, the same job title at several companies and at
several seniorities, one candidate with many applications in different stages, several
resume versions with the same title, referrals in every state.

The acting contract (who the platform serves): every candidate has a date of birth, so that
namesakes (two Maya Patel, two Daniel Kim, two Sofia Marquez) are told apart by birth date and
city; every company has one or two recruiters who own its postings, two of them named alike at
different companies. These come from a second generator after everything else, so the rows
made before them keep their values.
"""

from __future__ import annotations

import json
import random
from datetime import date, datetime, timedelta
from pathlib import Path

SEED = 20260512
CLOCK = datetime(2026, 5, 12, 10, 30, 0)
TODAY = CLOCK.date()

rng = random.Random(SEED)


def ident(prefix: str, n: int) -> str:
    return f"{prefix}-{n:05d}"


def day(offset: int) -> str:
    return (TODAY + timedelta(days=offset)).isoformat()


def weekday_slot(offset_days: int) -> str:
    """A weekday interview start between 09:00 and 16:00 about offset_days from today."""
    d = TODAY + timedelta(days=offset_days)
    while d.weekday() >= 5:
        d += timedelta(days=1 if offset_days >= 0 else -1)
    hour = rng.choice([9, 10, 11, 13, 14, 15, 16])
    minute = rng.choice([0, 30])
    return datetime(d.year, d.month, d.day, hour, minute).isoformat(timespec="seconds")


# ----------------------------------------------------------------------------- job families
# title, department, mid-level base salary (USD/yr), required skills, preferred skills
FAMILIES = {
    "software": ("Software Engineer", "Engineering", 132000, ["Python", "SQL", "Docker"], ["AWS", "Kubernetes"]),
    "backend": ("Backend Engineer", "Engineering", 138000, ["Go", "PostgreSQL", "Kubernetes"], ["Terraform", "AWS"]),
    "frontend": ("Frontend Engineer", "Engineering", 126000, ["React", "TypeScript"], ["Figma", "Node.js"]),
    "data_eng": ("Data Engineer", "Data", 135000, ["Python", "SQL", "Spark"], ["Airflow", "AWS"]),
    "analyst": ("Data Analyst", "Data", 92000, ["SQL", "Tableau", "Excel"], ["Python"]),
    "ml": ("Machine Learning Engineer", "AI Research", 158000, ["Python", "Machine Learning", "PyTorch"], ["Spark", "AWS"]),
    "sre": ("Site Reliability Engineer", "Infrastructure", 145000, ["Kubernetes", "Terraform", "Linux"], ["Go", "AWS"]),
    "pm": ("Product Manager", "Product", 140000, ["Product Strategy", "Agile", "SQL"], ["Figma"]),
    "design": ("Product Designer", "Design", 118000, ["Figma", "UX Research"], ["Prototyping"]),
    "mobile": ("iOS Engineer", "Engineering", 136000, ["Swift", "Xcode"], ["Kotlin"]),
    "security": ("Security Engineer", "Security", 150000, ["Linux", "SIEM", "Python"], ["Incident Response"]),
    "finance": ("Financial Analyst", "Finance", 88000, ["Excel", "Financial Modeling"], ["SQL"]),
    "marketing": ("Marketing Manager", "Marketing", 105000, ["SEO", "Content Marketing"], ["Google Analytics"]),
    "sales": ("Account Executive", "Sales", 85000, ["Salesforce", "Negotiation"], ["Cold Outreach"]),
    "success": ("Customer Success Manager", "Customer Success", 82000, ["Salesforce", "Customer Onboarding"], ["SQL"]),
}
EXTRA_SKILLS = ["Communication", "Agile", "Jira", "Git", "Public Speaking", "Mentoring", "Spanish", "Excel", "SQL",
                "Python", "Data Visualization", "Stakeholder Management"]
SENIORITY = {"junior": ("Junior ", 0.74), "mid": ("", 1.0), "senior": ("Senior ", 1.28), "lead": ("Lead ", 1.5)}

# ----------------------------------------------------------------------------- companies
COMPANIES = [
    ("Northwind Analytics", "Data & Analytics", "Chicago", "northwindanalytics.com", "midsize", "hiring"),
    ("Northwind Health", "Healthcare", "Boston", "northwindhealth.org", "enterprise", "hiring"),
    ("Bluejay Payments", "Fintech", "New York", "bluejaypay.com", "midsize", "hiring"),
    ("Cedar & Pine Bank", "Banking", "Charlotte", "cedarpinebank.com", "enterprise", "hiring"),
    ("Lumen Robotics", "Robotics", "Pittsburgh", "lumenrobotics.io", "startup", "hiring"),
    ("Tidewater Energy", "Energy", "Houston", "tidewaterenergy.com", "enterprise", "freeze"),
    ("Orchid Bio", "Biotech", "San Diego", "orchidbio.com", "startup", "hiring"),
    ("Brightpath Learning", "EdTech", "Austin", "brightpathlearning.com", "midsize", "hiring"),
    ("Quarry Security", "Cybersecurity", "Denver", "quarrysec.com", "midsize", "hiring"),
    ("Harborview Insurance", "Insurance", "Hartford", "harborviewins.com", "enterprise", "hiring"),
    ("Mosaic Media Group", "Media", "Los Angeles", "mosaicmedia.com", "midsize", "freeze"),
    ("Summit Cloudworks", "Cloud Infrastructure", "Seattle", "summitcloudworks.com", "midsize", "hiring"),
    ("Fernwood Games", "Gaming", "Seattle", "fernwoodgames.com", "startup", "hiring"),
    ("Pinecrest Medical Devices", "Medical Devices", "Minneapolis", "pinecrestmed.com", "enterprise", "hiring"),
    ("Copperline Manufacturing", "Manufacturing", "Detroit", "copperline.com", "enterprise", "hiring"),
    ("Atlas Civic Tech", "GovTech", "Washington", "atlascivic.org", "startup", "hiring"),
    ("Kestrel AI", "Artificial Intelligence", "San Francisco", "kestrel.ai", "startup", "hiring"),
    ("Meridian Health Partners", "Healthcare", "Nashville", "meridianhp.com", "enterprise", "hiring"),
    ("Granite Ledger", "Accounting Software", "Salt Lake City", "graniteledger.com", "midsize", "hiring"),
    ("Riverstone Capital", "Asset Management", "Boston", "riverstonecap.com", "midsize", "hiring"),
    ("Juniper Climate", "Climate Tech", "Oakland", "juniperclimate.com", "startup", "hiring"),
    ("Nimbus HR", "HR Software", "Austin", "nimbushr.com", "midsize", "hiring"),
    ("Saltbox Studios", "Design Agency", "Portland", "saltboxstudios.com", "startup", "freeze"),
    ("Vantage Legal Cloud", "LegalTech", "Chicago", "vantagelegal.com", "midsize", "hiring"),
    ("Horizon Semiconductors", "Semiconductors", "Phoenix", "horizonsemi.com", "enterprise", "hiring"),
    ("Paperkite Publishing", "Publishing", "New York", "paperkite.com", "midsize", "hiring"),
    ("Open Prairie Agritech", "AgTech", "Des Moines", "openprairie.com", "startup", "hiring"),
    ("Kestrel Analytics", "Data & Analytics", "Denver", "kestrelanalytics.com", "midsize", "hiring"),
    ("Beacon Telehealth", "Healthcare", "Denver", "beacontelehealth.com", "midsize", "hiring"),
    ("Redwood Insight", "Market Research", "San Francisco", "redwoodinsight.com", "startup", "hiring"),
]
companies = []
for i, (name, industry, city, domain, size, hiring) in enumerate(COMPANIES, start=1):
    companies.append({"company_id": ident("CMP", i), "name": name, "industry": industry, "headquarters_city": city,
                      "email_domain": domain, "size_band": size, "hiring_status": hiring})

# ----------------------------------------------------------------------------- job postings
# (company index, family, seniority, work mode, status, openings); fixed where it matters.
POSTINGS = [
    (1, "data_eng", "senior", "hybrid", "open", 2), (1, "data_eng", "mid", "hybrid", "open", 1),
    (1, "analyst", "mid", "onsite", "open", 1), (1, "pm", "senior", "hybrid", "paused", 1),
    (2, "analyst", "junior", "onsite", "open", 2), (2, "security", "senior", "hybrid", "open", 1),
    (2, "success", "mid", "remote", "closed", 1), (3, "backend", "senior", "remote", "open", 1),
    (3, "backend", "mid", "remote", "open", 2), (3, "frontend", "senior", "hybrid", "open", 1),
    (3, "finance", "mid", "onsite", "filled", 0), (4, "finance", "junior", "onsite", "open", 3),
    (4, "security", "lead", "onsite", "open", 1), (4, "software", "mid", "hybrid", "open", 2),
    (5, "software", "senior", "onsite", "open", 1), (5, "ml", "mid", "onsite", "open", 1),
    (6, "data_eng", "senior", "hybrid", "paused", 1), (6, "analyst", "mid", "onsite", "closed", 1),
    (7, "ml", "senior", "hybrid", "open", 1), (7, "data_eng", "mid", "remote", "open", 1),
    (8, "frontend", "mid", "remote", "open", 2), (8, "design", "senior", "remote", "open", 1),
    (8, "marketing", "mid", "hybrid", "open", 1), (9, "security", "mid", "remote", "open", 2),
    (9, "sre", "senior", "remote", "open", 1), (10, "analyst", "senior", "hybrid", "open", 1),
    (10, "software", "junior", "onsite", "open", 2), (11, "marketing", "senior", "hybrid", "closed", 1),
    (12, "sre", "mid", "remote", "open", 2), (12, "backend", "lead", "remote", "open", 1),
    (12, "software", "senior", "hybrid", "open", 1), (13, "frontend", "junior", "onsite", "open", 1),
    (13, "mobile", "mid", "hybrid", "open", 1), (14, "software", "mid", "onsite", "open", 1),
    (14, "pm", "mid", "hybrid", "open", 1), (15, "data_eng", "junior", "onsite", "open", 1),
    (15, "sales", "mid", "onsite", "open", 2), (16, "frontend", "mid", "remote", "open", 1),
    (16, "design", "mid", "remote", "filled", 0), (17, "ml", "senior", "onsite", "open", 2),
    (17, "ml", "lead", "onsite", "open", 1), (17, "backend", "senior", "hybrid", "open", 1),
    (18, "analyst", "mid", "hybrid", "open", 1), (18, "success", "mid", "remote", "open", 2),
    (19, "finance", "senior", "hybrid", "open", 1), (19, "software", "senior", "remote", "open", 1),
    (20, "finance", "mid", "onsite", "open", 1), (20, "data_eng", "senior", "hybrid", "open", 1),
    (21, "pm", "senior", "remote", "open", 1), (21, "ml", "mid", "remote", "open", 1),
    (22, "sales", "senior", "remote", "open", 1), (22, "success", "junior", "remote", "open", 2),
    (23, "design", "senior", "onsite", "paused", 1), (24, "backend", "mid", "hybrid", "open", 1),
    (25, "sre", "lead", "onsite", "open", 1), (26, "marketing", "mid", "hybrid", "open", 1),
    (27, "software", "mid", "remote", "open", 1), (28, "data_eng", "senior", "remote", "open", 1),
    (28, "analyst", "mid", "remote", "open", 2), (29, "mobile", "senior", "remote", "open", 1),
    (29, "security", "mid", "hybrid", "closed", 1), (30, "pm", "mid", "hybrid", "open", 1),
]
jobs = []
job_skills = []
job_family = {}
for i, (ci, fam, sen, mode, status, openings) in enumerate(POSTINGS, start=1):
    title, dept, base, req, pref = FAMILIES[fam]
    prefix, mult = SENIORITY[sen]
    mid = round(base * mult / 1000) * 1000
    spread = rng.choice([10000, 15000, 20000, 25000])
    posted = -rng.randint(8, 85)
    if status in ("closed", "filled"):
        closes = posted + rng.randint(20, 40)
        closes = min(closes, -1)
    else:
        closes = rng.randint(5, 50)
    if i == 9:  # open but past its closing date: applications are refused
        closes = -2
    company = companies[ci - 1]
    location = "Remote (US)" if mode == "remote" else company["headquarters_city"]
    job_id = ident("JOB", i)
    job_family[job_id] = fam
    jobs.append({"job_id": job_id, "company_id": company["company_id"], "title": prefix + title, "department": dept,
                 "location": location, "work_mode": mode,
                 "employment_type": "contract" if i in (20, 38, 50) else ("part_time" if i == 52 else "full_time"),
                 "seniority": sen, "salary_min": mid - spread, "salary_max": mid + spread, "openings": openings,
                 "status": status, "posted_on": day(posted), "closes_on": day(closes)})
    for skill in req:
        job_skills.append({"job_id": job_id, "skill_name": skill, "importance": "required"})
    for skill in pref[:1 + (i % 2)]:
        job_skills.append({"job_id": job_id, "skill_name": skill, "importance": "preferred"})
for i, row in enumerate(job_skills, start=1):
    row["job_skill_id"] = ident("JSK", i)
job_skills = [{"job_skill_id": r["job_skill_id"], "job_id": r["job_id"], "skill_name": r["skill_name"],
               "importance": r["importance"]} for r in job_skills]
jobs_by_id = {j["job_id"]: j for j in jobs}

# ----------------------------------------------------------------------------- candidates
PEOPLE = [
    ("Maya Patel", "Austin", "data_eng"), ("Daniel Kim", "Seattle", "backend"), ("Priya Raman", "Chicago", "analyst"),
    ("Marcus Johnson", "Atlanta", "software"), ("Elena Rossi", "Boston", "ml"), ("Tomas Herrera", "Denver", "sre"),
    ("Grace Nakamura", "San Francisco", "pm"), ("Owen Gallagher", "Pittsburgh", "software"),
    ("Leila Haddad", "New York", "frontend"), ("Samuel Adeyemi", "Houston", "data_eng"),
    ("Hannah Whitfield", "Portland", "design"), ("Rafael Moreno", "Phoenix", "security"),
    ("Chloe Beaumont", "Minneapolis", "marketing"), ("Victor Petrov", "Raleigh", "backend"),
    ("Amara Nwosu", "Charlotte", "finance"), ("Julian Castillo", "San Diego", "ml"), ("Mei Lin Zhou", "Seattle", "mobile"),
    ("Patrick Doyle", "Detroit", "sales"), ("Nadia Rahman", "Washington", "security"), ("Ethan Brooks", "Nashville", "success"),
    ("Sofia Marquez", "Los Angeles", "frontend"), ("Benjamin Hart", "Salt Lake City", "finance"),
    ("Yuki Tanaka", "Oakland", "data_eng"), ("Lucas Ferreira", "Miami", "software"), ("Olivia Kowalski", "Chicago", "pm"),
    ("Isaac Mensah", "Columbus", "analyst"), ("Freya Andersen", "Minneapolis", "design"), ("Diego Alvarez", "Austin", "sre"),
    ("Zara Qureshi", "Boston", "analyst"), ("Henry Caldwell", "Hartford", "security"), ("Ava Schneider", "Denver", "marketing"),
    ("Noah Bergstrom", "Seattle", "software"), ("Kwame Asante", "Atlanta", "success"), ("Theo Laurent", "New York", "finance"),
    ("Ruth Ellison", "Des Moines", "sales"), ("Camila Ortiz", "San Jose", "ml"), ("Jonah Feldman", "Philadelphia", "backend"),
    ("Aisha Bello", "Dallas", "data_eng"), ("Liam O'Connell", "Boston", "sre"), ("Hana Sato", "Portland", "mobile"),
    # near neighbours: same names, other people
    ("Maya Patel", "Chicago", "analyst"), ("Daniel Kim", "Austin", "frontend"), ("Sofia Marquez", "Phoenix", "success"),
    ("Ethan Brookes", "Nashville", "software"), ("Priya Ramanathan", "Chicago", "data_eng"),
]
HEADLINES = {
    "software": "Software engineer building reliable Python services",
    "backend": "Backend engineer focused on Go microservices and Postgres",
    "frontend": "Frontend engineer crafting accessible React interfaces",
    "data_eng": "Data engineer designing batch and streaming pipelines",
    "analyst": "Data analyst turning SQL and dashboards into decisions",
    "ml": "Machine learning engineer shipping models to production",
    "sre": "Site reliability engineer keeping Kubernetes fleets healthy",
    "pm": "Product manager for B2B SaaS platforms",
    "design": "Product designer with a research-first process",
    "mobile": "iOS engineer building polished native apps",
    "security": "Security engineer specialising in detection and response",
    "finance": "Financial analyst skilled in forecasting and FP&A",
    "marketing": "Marketing manager growing organic acquisition",
    "sales": "Account executive closing mid-market SaaS deals",
    "success": "Customer success manager driving onboarding and renewals",
}
EMAIL_DOMAINS = ["gmail.com", "outlook.com", "proton.me", "fastmail.com", "icloud.com", "yahoo.com"]
AREA = {"Austin": "512", "Seattle": "206", "Chicago": "312", "Atlanta": "404", "Boston": "617", "Denver": "303",
        "San Francisco": "415", "Pittsburgh": "412", "New York": "646", "Houston": "713", "Portland": "503",
        "Phoenix": "602", "Minneapolis": "612", "Raleigh": "919", "Charlotte": "704", "San Diego": "619",
        "Detroit": "313", "Washington": "202", "Nashville": "615", "Los Angeles": "213", "Salt Lake City": "801",
        "Oakland": "510", "Miami": "305", "Columbus": "614", "Hartford": "860", "Des Moines": "515",
        "San Jose": "408", "Philadelphia": "215", "Dallas": "214"}

candidates = []
candidate_skills = []
cand_family = {}
used_emails: set[str] = set()
for i, (name, city, fam) in enumerate(PEOPLE, start=1):
    first, last = name.lower().replace("'", "").split()[0], name.lower().replace("'", "").split()[-1]
    email = f"{first}.{last}@{rng.choice(EMAIL_DOMAINS)}"
    if email in used_emails:
        email = f"{first}{last[0]}{rng.randint(10, 99)}@{rng.choice(EMAIL_DOMAINS)}"
    used_emails.add(email)
    years = rng.randint(1, 16)
    title, _, base, req, pref = FAMILIES[fam]
    desired = round(base * (0.8 + years * 0.04) / 1000) * 1000
    cid = ident("CAN", i)
    cand_family[cid] = fam
    candidates.append({"candidate_id": cid, "full_name": name, "email": email,
                       "phone": f"+1-{AREA[city]}-555-{rng.randint(1000, 9999)}", "city": city,
                       "headline": HEADLINES[fam], "years_experience": years, "desired_salary": desired,
                       "status": "active", "joined_on": day(-rng.randint(30, 330))})
    skills = list(req)
    if rng.random() < 0.55:  # some candidates lack one required skill of their family
        skills = skills[:-1]
    skills += rng.sample(pref, k=min(len(pref), rng.randint(0, 2)))
    for extra in rng.sample(EXTRA_SKILLS, k=rng.randint(1, 2)):
        if extra not in skills:
            skills.append(extra)
    for skill in skills:
        yrs = rng.randint(0, years)
        level = "beginner" if yrs < 2 else "intermediate" if yrs < 4 else "advanced" if yrs < 8 else "expert"
        candidate_skills.append({"candidate_id": cid, "skill_name": skill, "level": level, "years": yrs})
candidate_skills = [{"candidate_skill_id": ident("CSK", i), **row} for i, row in enumerate(candidate_skills, start=1)]

# ----------------------------------------------------------------------------- resumes
SUMMARIES = {
    "software": "Engineer with {y} years building Python back ends, CI pipelines and containerised services.",
    "backend": "Backend developer with {y} years of Go, PostgreSQL tuning and Kubernetes deployments.",
    "frontend": "Frontend developer with {y} years of React and TypeScript, design systems and accessibility.",
    "data_eng": "Data engineer with {y} years building Spark and SQL pipelines feeding analytics warehouses.",
    "analyst": "Analyst with {y} years of SQL, Tableau dashboards and Excel models for operations teams.",
    "ml": "ML engineer with {y} years training PyTorch models and running them behind low-latency APIs.",
    "sre": "SRE with {y} years of Terraform, Kubernetes on-call and incident reviews on Linux fleets.",
    "pm": "Product manager with {y} years owning roadmaps, discovery and agile delivery for SaaS products.",
    "design": "Designer with {y} years of Figma prototyping and moderated UX research studies.",
    "mobile": "iOS engineer with {y} years of Swift, SwiftUI and App Store releases.",
    "security": "Security engineer with {y} years of SIEM tuning, threat hunting and Linux hardening.",
    "finance": "Financial analyst with {y} years of budgeting, variance analysis and three-statement models.",
    "marketing": "Marketer with {y} years leading SEO programmes and editorial content calendars.",
    "sales": "Account executive with {y} years closing Salesforce-tracked mid-market deals.",
    "success": "Customer success lead with {y} years onboarding accounts and defending renewals.",
}
resumes = []
resume_of = {}  # candidate_id -> list of final resume ids
n = 0
for cand in candidates:
    cid = cand["candidate_id"]
    fam = cand_family[cid]
    title = FAMILIES[fam][0] + " resume"
    count = rng.choice([1, 2, 2, 3])
    resume_of[cid] = []
    for v in range(1, count + 1):
        n += 1
        if v < count:
            status = "archived" if rng.random() < 0.3 else "final"
        else:
            status = "draft" if (count > 1 and rng.random() < 0.35) else "final"
        rid = ident("RES", n)
        summary = SUMMARIES[fam].format(y=max(1, cand["years_experience"] - (count - v)))
        resumes.append({"resume_id": rid, "candidate_id": cid, "title": title if v < 3 else "Tailored " + title.lower(),
                        "summary": summary, "version": v, "status": status, "updated_on": day(-rng.randint(5, 90) + v * 3)})
        if status != "draft":
            resume_of[cid].append(rid)
    if not resume_of[cid]:  # every candidate gets at least one final resume
        resumes[-1]["status"] = "final"
        resume_of[cid].append(resumes[-1]["resume_id"])
resume_status = {r["resume_id"]: r for r in resumes}

# ----------------------------------------------------------------------------- referrals
FIRST = ["Alex", "Jordan", "Taylor", "Morgan", "Casey", "Riley", "Jamie", "Avery", "Quinn", "Drew", "Sam", "Robin",
         "Kai", "Reese", "Emerson", "Harper"]
LAST = ["Nguyen", "Brennan", "Okoye", "Lindgren", "Sato", "Ramirez", "Fischer", "Coleman", "Park", "Dubois", "Walsh",
        "Mbeki", "Horvath", "Silva", "Iyer", "Chen"]

applications = []
interviews = []
offers = []
referrals = []
reminders = []


def open_jobs_for(fam: str) -> list[str]:
    return [j["job_id"] for j in jobs if job_family[j["job_id"]] == fam]


RELATED = {"software": ["backend", "data_eng"], "backend": ["software", "sre"], "frontend": ["mobile", "design"],
           "data_eng": ["analyst", "software"], "analyst": ["data_eng", "finance"], "ml": ["data_eng", "software"],
           "sre": ["backend", "security"], "pm": ["design", "analyst"], "design": ["frontend", "pm"],
           "mobile": ["frontend"], "security": ["sre"], "finance": ["analyst"], "marketing": ["sales"],
           "sales": ["success", "marketing"], "success": ["sales"]}

INTERVIEWERS = ["Rebecca Liu", "Mark Feeney", "Anita Desai", "Carlos Mendes", "Jenna Holt", "Peter Novak",
                "Sunita Rao", "Gavin Price", "Lauren Meyers", "Tariq Aziz", "Helen Ward", "Omar Farouk"]
FEEDBACK_YES = ["Clear communicator with solid fundamentals; recommend moving forward.",
                "Strong system design discussion, handled trade-offs well.",
                "Great culture add, asked thoughtful questions about the roadmap.",
                "Solved the exercise cleanly and explained testing strategy."]
FEEDBACK_NO = ["Struggled with the core exercise and needed heavy hints.",
               "Experience does not match the seniority of the role.",
               "Answers stayed high level; could not go deep on past projects."]
CLOSED_REJECT = ["Position filled by another candidate", "Not enough relevant experience",
                 "Interview feedback below the bar", "Role requirements changed"]
CLOSED_WITHDRAW = ["Accepted another offer", "Compensation below expectations", "Relocation not possible",
                   "Decided to stay with current employer"]

hired_candidates: set[str] = set()
paused = {"CAN-00012", "CAN-00027", "CAN-00035", "CAN-00043"}
app_n = ivw_n = ofr_n = 0
STAGE_WEIGHTS = [("applied", 22), ("screening", 14), ("interview", 22), ("offer", 16), ("hired", 6),
                 ("rejected", 14), ("withdrawn", 9)]


def pick_stage() -> str:
    roll = rng.randint(1, sum(w for _, w in STAGE_WEIGHTS))
    for stage, weight in STAGE_WEIGHTS:
        roll -= weight
        if roll <= 0:
            return stage
    return "applied"


def add_interview(app_id: str, rnd: int, when: str, status: str, good: bool) -> None:
    global ivw_n
    ivw_n += 1
    kind = ["phone_screen", "technical", "hiring_manager", "onsite", "panel"][min(rnd - 1, 4)]
    row = {"interview_id": ident("IVW", ivw_n), "application_id": app_id, "round": rnd, "interview_type": kind,
           "interviewer_name": rng.choice(INTERVIEWERS), "scheduled_at": when,
           "duration_minutes": 30 if kind == "phone_screen" else rng.choice([45, 60, 90]),
           "status": status, "reschedule_count": rng.choice([0, 0, 0, 1, 2]) if status == "scheduled" else rng.choice([0, 0, 1]),
           "rating": None, "recommendation": None, "feedback": None}
    if status == "completed":
        row["rating"] = rng.choice([4, 5]) if good else rng.choice([1, 2])
        row["recommendation"] = rng.choice(["yes", "strong_yes"]) if good else rng.choice(["no", "strong_no"])
        row["feedback"] = rng.choice(FEEDBACK_YES if good else FEEDBACK_NO)
    interviews.append(row)


for cand in candidates:
    cid = cand["candidate_id"]
    fam = cand_family[cid]
    pool = open_jobs_for(fam) + [j for r in RELATED[fam] for j in open_jobs_for(r)][:4]
    count = min(len(pool), rng.choice([1, 2, 2, 3, 3, 4]) + (2 if cid == "CAN-00001" else 0))
    chosen = rng.sample(pool, k=count)
    for job_id in chosen:
        job = jobs_by_id[job_id]
        stage = pick_stage()
        if cid in paused and stage not in ("applied", "withdrawn"):
            stage = "withdrawn"
        if job["status"] in ("closed", "filled") and stage not in ("rejected", "withdrawn", "hired"):
            stage = "rejected"
        if stage == "hired" and (cid in hired_candidates or job["status"] != "filled" and job["openings"] < 1):
            stage = "interview"
        if stage == "hired" and cid in paused:
            stage = "withdrawn"
        posted = date.fromisoformat(job["posted_on"])
        latest = min(TODAY - timedelta(days=1), date.fromisoformat(job["closes_on"]))
        span = max(0, (latest - posted).days)
        early = stage in ("offer", "hired", "interview", "rejected")
        applied = posted + timedelta(days=rng.randint(0, span // 2 if early else span))
        app_n += 1
        app_id = ident("APP", app_n)
        resume_id = rng.choice(resume_of[cid])
        if stage in ("applied", "screening", "interview", "offer") and resume_status[resume_id]["status"] == "archived":
            resume_status[resume_id]["status"] = "final"
        row = {"application_id": app_id, "candidate_id": cid, "job_id": job_id, "resume_id": resume_id,
               "referral_id": None, "source": "direct", "stage": stage, "applied_on": applied.isoformat(),
               "updated_on": applied.isoformat(), "cover_note": None, "closed_reason": None}
        if rng.random() < 0.4:
            row["cover_note"] = f"Excited about the {job['title']} role; my background in {FAMILIES[fam][3][0]} fits the team."
        since = (TODAY - applied).days
        updated = applied + timedelta(days=min(since, rng.randint(1, 6))) if stage != "applied" else applied
        late_offer = stage in ("withdrawn", "rejected") and rng.random() < 0.4
        if stage in ("interview", "offer", "hired", "rejected", "withdrawn"):
            rounds = rng.randint(1, 3)
            first = applied + timedelta(days=rng.randint(4, 9))
            for r in range(1, rounds + 1):
                when_day = first + timedelta(days=(r - 1) * 6)
                offset = (when_day - TODAY).days
                if stage == "interview" and r == rounds:
                    # last round still open: mostly upcoming, a few in the past awaiting feedback
                    offset = rng.choice([1, 2, 3, 6, 8, 9, 13, 16, -1, -2])
                    add_interview(app_id, r, weekday_slot(offset), "scheduled", True)
                elif stage == "rejected" and r == rounds and not late_offer:
                    add_interview(app_id, r, weekday_slot(min(offset, -1)), "completed", False)
                elif stage == "withdrawn" and r == rounds and not late_offer:
                    add_interview(app_id, r, weekday_slot(max(offset, 2)), "cancelled", True)
                else:
                    add_interview(app_id, r, weekday_slot(min(offset, -3 - 6 * (rounds - r))), "completed", True)
                updated = max(updated, min(TODAY, when_day))
            if stage in ("rejected", "withdrawn") and rounds == 1 and not late_offer and rng.random() < 0.5:
                interviews.pop()  # some closed applications ended before any interview
                ivw_n -= 1
        if stage in ("offer", "hired") or late_offer:
            ofr_n += 1
            lo, hi = job["salary_min"], job["salary_max"]
            base = round(rng.randint(lo, hi) / 500) * 500
            extended = rng.randint(1, 8) if stage != "hired" else rng.randint(10, 25)
            status = {"offer": rng.choice(["extended", "extended", "countered"]), "hired": "accepted",
                      "withdrawn": "declined", "rejected": rng.choice(["expired", "rescinded"])}[stage]
            if status == "extended" and rng.random() < 0.2:
                extended = rng.randint(12, 15)  # still marked extended but past its expiry date
            expires = -extended + rng.randint(7, 10)
            counter = None
            rnd = 0
            if status == "countered":
                rnd = rng.randint(1, 2)
                counter = round(base * rng.uniform(1.05, 1.15) / 500) * 500
            offers.append({"offer_id": ident("OFR", ofr_n), "application_id": app_id, "base_salary": base,
                           "bonus": rng.choice([0, 5000, 10000, 15000, 20000]),
                           "start_date": day(-extended + rng.randint(28, 45)), "status": status,
                           "extended_on": day(-extended), "expires_on": day(expires), "negotiation_round": rnd,
                           "counter_salary": counter,
                           "responded_on": day(-extended + rng.randint(1, 4)) if status in ("accepted", "declined") else None,
                           "decline_reason": rng.choice(CLOSED_WITHDRAW) if status == "declined" else None})
            updated = TODAY - timedelta(days=extended)
        if stage == "hired":
            hired_candidates.add(cid)
            cand["status"] = "hired"
        if stage == "rejected":
            row["closed_reason"] = rng.choice(CLOSED_REJECT)
        if stage == "withdrawn":
            row["closed_reason"] = rng.choice(CLOSED_WITHDRAW)
        row["updated_on"] = max(applied, min(updated, TODAY - timedelta(days=0))).isoformat()
        applications.append(row)

# a hired candidate's other open applications were withdrawn when the offer was accepted
for app in applications:
    if app["candidate_id"] in hired_candidates and app["stage"] in ("applied", "screening", "interview", "offer"):
        app["stage"] = "withdrawn"
        app["closed_reason"] = "Accepted another offer"
        for row in interviews:
            if row["application_id"] == app["application_id"] and row["status"] == "scheduled":
                row["status"] = "cancelled"
        for row in offers:
            if row["application_id"] == app["application_id"] and row["status"] in ("extended", "countered"):
                row["status"] = "declined"
                row["responded_on"] = max(row["extended_on"], day(-1))
                row["decline_reason"] = "Candidate accepted another offer"

for cid in paused:
    for cand in candidates:
        if cand["candidate_id"] == cid and cand["status"] == "active":
            cand["status"] = "paused"

# referrals: used ones are attached to applications, others float in every state
apps_by_id = {a["application_id"]: a for a in applications}
ref_n = 0
for app in applications:
    job = jobs_by_id[app["job_id"]]
    if rng.random() < 0.22:
        ref_n += 1
        company = companies[int(job["company_id"][-5:]) - 1]
        fn, ln = rng.choice(FIRST), rng.choice(LAST)
        requested = date.fromisoformat(app["applied_on"]) - timedelta(days=rng.randint(2, 10))
        rid = ident("REF", ref_n)
        referrals.append({"referral_id": rid, "candidate_id": app["candidate_id"], "job_id": app["job_id"],
                          "referrer_name": f"{fn} {ln}",
                          "referrer_email": f"{fn.lower()}.{ln.lower()}@{company['email_domain']}",
                          "relationship": rng.choice(["former_colleague", "friend", "classmate", "former_manager"]),
                          "status": "used", "requested_on": requested.isoformat(),
                          "submitted_on": (requested + timedelta(days=1)).isoformat()})
        app["referral_id"] = rid
        app["source"] = "referral"
applied_pairs = {(a["candidate_id"], a["job_id"]) for a in applications}
open_job_ids = [j["job_id"] for j in jobs if j["status"] == "open" and j["closes_on"] >= TODAY.isoformat()]
used_count = ref_n
while ref_n < used_count + 16:
    cand = rng.choice(candidates)
    cid = cand["candidate_id"]
    fam = cand_family[cid]
    options = [j for j in open_jobs_for(fam) + open_jobs_for(RELATED[fam][0]) if (cid, j) not in applied_pairs]
    if not options:
        continue
    job_id = rng.choice(options)
    applied_pairs.add((cid, job_id))
    job = jobs_by_id[job_id]
    company = companies[int(job["company_id"][-5:]) - 1]
    ref_n += 1
    state = rng.choice(["requested", "requested", "submitted", "submitted", "expired"])
    if job_id not in open_job_ids and state != "expired":
        state = "expired"
    requested = -rng.randint(2, 20) if state != "expired" else -rng.randint(35, 60)
    if state == "requested" and rng.random() < 0.25:
        requested = -rng.randint(32, 40)  # stale request: too old to be confirmed
    fn, ln = rng.choice(FIRST), rng.choice(LAST)
    referrals.append({"referral_id": ident("REF", ref_n), "candidate_id": cid, "job_id": job_id,
                      "referrer_name": f"{fn} {ln}", "referrer_email": f"{fn.lower()}.{ln.lower()}@{company['email_domain']}",
                      "relationship": rng.choice(["former_colleague", "friend", "classmate", "former_manager", "other"]),
                      "status": state, "requested_on": day(requested),
                      "submitted_on": day(requested + rng.randint(1, 2)) if state == "submitted" else None})
referrals.sort(key=lambda r: r["referral_id"])

# ----------------------------------------------------------------------------- reminders
REMINDER_TEXT = {  # by application stage
    "applied": ["Check whether {company} has replied to the {title} application",
                "Follow up with the recruiter about next steps for {title}"],
    "screening": ["Follow up with the recruiter about next steps for {title}",
                  "Prepare questions for the {title} screening call"],
    "interview": ["Send a thank-you note after the {title} interview",
                  "Prepare system design examples for {title}"],
    "offer": ["Review the offer details for {title} before the deadline"],
    "closed": ["Ask {company} for feedback on the {title} application",
               "Send a thank-you note to the {company} recruiter"],
}
GENERAL_TEXT = ["Update LinkedIn headline", "Ask a former manager for a recommendation letter",
                "Refresh portfolio with the latest project", "Practice salary negotiation talking points"]
rem_n = 0
for cand in candidates:
    cid = cand["candidate_id"]
    mine = [a for a in applications if a["candidate_id"] == cid]
    for _ in range(rng.choice([0, 1, 1, 2])):
        rem_n += 1
        created = -rng.randint(1, 25)
        due = created + rng.randint(2, 30)
        status = "done" if due < 0 and rng.random() < 0.6 else "pending"
        app = rng.choice(mine) if mine and rng.random() < 0.75 else None
        if app:
            job = jobs_by_id[app["job_id"]]
            company = companies[int(job["company_id"][-5:]) - 1]
            texts = REMINDER_TEXT.get(app["stage"], REMINDER_TEXT["closed"])
            message = rng.choice(texts).format(title=job["title"], company=company["name"])
        else:
            message = rng.choice(GENERAL_TEXT)
        reminders.append({"reminder_id": ident("REM", rem_n), "candidate_id": cid,
                          "application_id": app["application_id"] if app else None, "due_on": day(due),
                          "message": message, "status": status, "created_on": day(created),
                          "completed_on": day(min(due, -1)) if status == "done" else None})

# ----------------------------------------------------------------------------- acting contract
# Added after the first release with a second generator, so that every row above keeps its
# values: candidates' dates of birth (namesakes differ by birth date and city), each company's
# recruiters (two recruiters of one name at different companies), the recruiter who owns each
# posting, and interview feedback written in the interviewers' own words.
extra = random.Random(SEED + 1)

born_used: set[str] = set()
for i, cand in enumerate(candidates):
    while True:
        age = 22 + cand["years_experience"] + extra.randint(0, 9)
        born = date(TODAY.year - age, extra.randint(1, 12), extra.randint(1, 28)).isoformat()
        if born not in born_used:
            break
    born_used.add(born)
    candidates[i] = {"candidate_id": cand["candidate_id"], "full_name": cand["full_name"], "date_of_birth": born,
                     **{k: v for k, v in cand.items() if k not in ("candidate_id", "full_name")}}

RECRUITER_NAMES = [
    "Jordan Reyes", "Alicia Moreno", "Brandon Lee", "Catherine Osei", "Devon Marshall", "Erin Kowalczyk",
    "Farah Siddiqui", "Gabriel Stone", "Heather Lindqvist", "Ivan Sokolov", "Jasmine Carter", "Kevin O'Brien",
    "Laura Bianchi", "Miguel Santos", "Natalie Grant", "Oscar Lindholm", "Paula Jimenez", "Quentin Hayes",
    "Rachel Adler", "Steven Cho", "Tamara Wells", "Umar Khalid", "Vanessa Pruitt", "Wesley Turner",
    "Ximena Duarte", "Yasmin Farah", "Zachary Cole", "Amelia Frost", "Bilal Hussain", "Colleen Murphy",
    "Dmitri Volkov", "Esther Abrams", "Felix Navarro", "Gwen Tallis", "Hector Ruiz", "Ingrid Solberg",
    "Jared Whitman", "Keiko Mori", "Leon Baptiste", "Monique Dubois", "Nikhil Shah", "Orla Keane",
    "Peter Vance", "Rosa Delgado", "Simone Achebe",
]
RECRUITER_TITLES = ["Technical Recruiter", "Senior Technical Recruiter", "Talent Acquisition Partner",
                    "Recruiting Coordinator", "Head of Talent", "University Recruiter", "Talent Acquisition Lead"]
recruiters = []
names = list(RECRUITER_NAMES)
for company in companies:
    for _ in range(2 if extra.random() < 0.5 else 1):
        name = names.pop(0) if names else extra.choice(RECRUITER_NAMES)
        if company["name"] == "Kestrel Analytics":
            name = "Jordan Reyes"  # namesake of Northwind Analytics' recruiter, another person
        first, last = name.lower().replace("'", "").split()[0], name.lower().replace("'", "").split()[-1]
        city = company["headquarters_city"]
        recruiters.append({"recruiter_id": ident("RCT", len(recruiters) + 1), "company_id": company["company_id"],
                           "full_name": name, "email": f"{first}.{last}@{company['email_domain']}",
                           "phone": f"+1-{AREA.get(city, '800')}-555-{extra.randint(1000, 9999)}",
                           "job_title": extra.choice(RECRUITER_TITLES)})
recruiters_of = {c["company_id"]: [r["recruiter_id"] for r in recruiters if r["company_id"] == c["company_id"]]
                 for c in companies}
for i, job in enumerate(jobs):
    jobs[i] = {"job_id": job["job_id"], "company_id": job["company_id"],
               "recruiter_id": extra.choice(recruiters_of[job["company_id"]]),
               **{k: v for k, v in job.items() if k not in ("job_id", "company_id")}}

TOPICS = {"phone_screen": ["motivation for the move", "salary expectations", "notice period", "recent projects"],
          "technical": ["the coding exercise", "debugging under time pressure", "data modelling", "API design"],
          "hiring_manager": ["team fit", "how they run projects", "stakeholder stories", "ownership examples"],
          "onsite": ["the system design round", "the pairing session", "the whiteboard problem", "the team lunch"],
          "panel": ["the case presentation", "cross-team questions", "the leadership scenario", "prioritisation"]}
OPENERS_YES = ["Good signal on", "Impressed by how they handled", "Confident and structured during",
               "Well prepared for", "Thoughtful answers on", "Clear reasoning through", "Solid performance in",
               "Engaged and curious during"]
CLOSERS_YES = ["Recommend the next round.", "Would hire at this level.", "No concerns from my side.",
               "Keep them moving.", "Good match for the team.", "Minor gaps, easily coached.",
               "Asked sharp questions about the roadmap.", "Explained trade-offs without prompting."]
OPENERS_NO = ["Struggled with", "Needed many hints on", "Could not go deep on", "Vague answers about",
              "Ran out of time on", "Unconvincing on"]
CLOSERS_NO = ["Below the bar for this level.", "Not a fit for the role right now.", "Would not move forward.",
              "Might fit a more junior opening.", "Concerns outweigh the strengths.", "Recommend we pass."]
for row in interviews:
    if row["feedback"] is None:
        continue
    good = row["recommendation"] in ("yes", "strong_yes")
    topic = extra.choice(TOPICS[row["interview_type"]])
    opener = extra.choice(OPENERS_YES if good else OPENERS_NO)
    closer = extra.choice(CLOSERS_YES if good else CLOSERS_NO)
    row["feedback"] = f"{opener} {topic}. {closer}"

# ----------------------------------------------------------------------------- the next 24 hours
# Added with the refusal tasks (issue #21): a few upcoming interviews start within a day of the
# clock, so the policy's "no changes within 24 hours" rule has rows to bite on (the tools would
# still move or cancel them). Set by id so that every other row keeps its values.
SOON = {"IVW-00032": "2026-05-12T15:00:00", "IVW-00104": "2026-05-12T16:30:00",
        "IVW-00080": "2026-05-13T09:30:00", "IVW-00071": "2026-05-13T10:00:00"}
for row in interviews:
    if row["interview_id"] in SOON:
        row["scheduled_at"] = SOON[row["interview_id"]]

# ----------------------------------------------------------------------------- a live deployment's shape
# Added with the seed-shape check (issue #20). A live job board holds mostly applications that
# were never answered or were turned down; offers are rare (a few percent) and people write their
# own headlines, resume titles, cover notes and reasons. Rows above keep their ids: some stages
# move (set by id), the offers of applications that no longer reached one are dropped (ids keep
# their gaps, as a live table does), and the free text is rewritten from a third generator.
live = random.Random(SEED + 2)
apps_by_id = {a["application_id"]: a for a in applications}
jobs_by_id = {j["job_id"]: j for j in jobs}
company_by_id = {c["company_id"]: c for c in companies}
ivws_of: dict[str, list[dict]] = {}
for row in interviews:
    ivws_of.setdefault(row["application_id"], []).append(row)
offer_of = {o["application_id"]: o for o in offers}

TO_APPLIED = ["APP-00040", "APP-00053", "APP-00068", "APP-00074", "APP-00081", "APP-00098", "APP-00115"]  # never answered
REJECTED_AT_SCREEN = ["APP-00036", "APP-00047", "APP-00051", "APP-00065", "APP-00085", "APP-00105", "APP-00113"]
REJECTED_AFTER_FINAL = ["APP-00020", "APP-00029", "APP-00077",  # offer stage: the offer never came
                        "APP-00044", "APP-00045", "APP-00054", "APP-00059", "APP-00094",  # declined offers
                        "APP-00035"]  # a lapsed offer
FINAL_ROUND_FAILED = {"APP-00020", "APP-00029", "APP-00077", "APP-00045", "APP-00059", "APP-00035"}
OFFER_LAPSED_AT_STAGE = ["APP-00080"]  # an extended offer the candidate never answered
OFFER_DECLINED = ["APP-00034", "APP-00072", "APP-00088"]  # the candidate turned the offer down

for app_id in TO_APPLIED:
    apps_by_id[app_id].update(stage="applied", updated_on=apps_by_id[app_id]["applied_on"])
for app_id in REJECTED_AT_SCREEN:
    apps_by_id[app_id]["stage"] = "rejected"
dropped = set()
for app_id in REJECTED_AFTER_FINAL:
    apps_by_id[app_id]["stage"] = "rejected"
    dropped.add(offer_of[app_id]["offer_id"])
    if app_id in FINAL_ROUND_FAILED:
        last = ivws_of[app_id][-1]
        topic = live.choice(TOPICS[last["interview_type"]])
        last.update(rating=live.choice([1, 2]), recommendation=live.choice(["no", "strong_no"]),
                    feedback=f"{live.choice(OPENERS_NO)} {topic}. {live.choice(CLOSERS_NO)}")
offers = [o for o in offers if o["offer_id"] not in dropped]
for app_id in OFFER_LAPSED_AT_STAGE:
    apps_by_id[app_id]["stage"] = "rejected"
    offer_of[app_id]["status"] = "expired"
for offer in offers:  # an expired offer's answer-by day is behind the clock
    if offer["status"] == "expired" and offer["expires_on"] >= TODAY.isoformat():
        extended = date.fromisoformat(offer["extended_on"])
        if (TODAY - extended).days > 4:  # answer-by day 3 or more days after it was extended, before today
            offer["expires_on"] = (extended + timedelta(days=live.randint(3, (TODAY - extended).days - 1))).isoformat()
        else:
            back = timedelta(days=(date.fromisoformat(offer["expires_on"]) - TODAY).days + live.randint(2, 9))
            for field in ("extended_on", "expires_on", "start_date"):
                offer[field] = (date.fromisoformat(offer[field]) - back).isoformat()
    if offer["status"] == "expired":  # the recruiter closed the application the day after
        apps_by_id[offer["application_id"]]["updated_on"] = day((date.fromisoformat(offer["expires_on"]) - TODAY).days + 1)
for app_id in OFFER_DECLINED:
    offer = offer_of[app_id]
    responded = min(date.fromisoformat(offer["extended_on"]) + timedelta(days=live.randint(1, 3)),
                    TODAY - timedelta(days=1))
    offer.update(status="declined", responded_on=responded.isoformat())
    apps_by_id[app_id].update(stage="withdrawn", updated_on=responded.isoformat())

# reminders whose application moved back to "applied" ask about a reply, not a screening call
REPLY_TEXT = {"REM-00025": "Check whether {company} has replied to the {title} application",
              "REM-00026": "Email the {company} recruiter if there is still no answer on {title}",
              "REM-00040": "Look up who the hiring manager is for the {title} role at {company}"}
for row in reminders:
    if row["reminder_id"] in REPLY_TEXT:
        job = jobs_by_id[apps_by_id[row["application_id"]]["job_id"]]
        row["message"] = REPLY_TEXT[row["reminder_id"]].format(
            title=job["title"], company=company_by_id[job["company_id"]]["name"])

# headlines in each person's own words (by candidate number)
OWN_HEADLINES = [
    "Data engineer | Spark, Airflow, dbt | open to hybrid in Austin",
    "Backend engineer, 13 yrs - Go services and Postgres at scale",
    "Senior data analyst who turns messy SQL into decisions",
    "Python developer, ex-fintech, looking for a platform team",
    "ML engineer: recommendation models from notebook to prod",
    "SRE keeping Kubernetes clusters boring (in a good way)",
    "Product leader for B2B SaaS, 0-to-1 and scale-up",
    "Full-stack leaning backend engineer in Pittsburgh",
    "Junior frontend developer, React and accessibility nerd",
    "Data engineer moving from oil & gas analytics into tech",
    "Product designer - research first, pixels second",
    "Security engineer, detection and incident response",
    "Content and SEO marketing lead for consumer brands",
    "Go/Kubernetes backend developer open to remote",
    "FP&A analyst building driver-based forecasts",
    "Machine learning engineer shipping models to production",
    "iOS developer, SwiftUI, first app shipped 2025",
    "SaaS account executive, Midwest territory, 120% of quota",
    "Blue-team security analyst transitioning to engineering",
    "Customer success manager, renewals and onboarding, 12 yrs",
    "Frontend developer and bootcamp grad in Los Angeles",
    "Senior financial analyst, SaaS metrics and board decks",
    "Data engineer, streaming pipelines on GCP and AWS",
    "Software engineer at a Miami startup, Django and AWS",
    "Senior PM for data products and internal platforms",
    "Operations analyst fluent in SQL, Tableau and Excel",
    "UX designer on a career break, open to contract work",
    "Staff-level SRE and on-call lead, 16 years in infra",
    "Healthcare data analyst, claims and quality metrics",
    "Security engineer for regulated industries (insurance, banking)",
    "Growth marketing manager, paid and organic",
    "Senior software engineer, distributed systems and mentoring",
    "Customer success lead for enterprise accounts",
    "Corporate finance analyst, ex-investment banking",
    "Enterprise sales rep on a break, back in the fall",
    "Applied scientist, NLP and LLM evaluation",
    "Backend engineer (Java to Go), payments background",
    "Analytics engineer, SQL and Spark, Dallas based",
    "Site reliability engineer, Terraform and observability",
    "iOS engineer, health and fitness apps",
    "Data analyst for retail and marketing teams",
    "Frontend engineer, TypeScript and design systems",
    "Account manager moving into customer success",
    "Python developer, test automation and CI",
    "Graduate data engineer, Python and SQL",
]
assert len(OWN_HEADLINES) == len(candidates)
for cand, headline in zip(candidates, OWN_HEADLINES):
    cand["headline"] = headline

# resume titles as people name their files
FOCUS = {"software": ["APIs", "Python", "platform"], "backend": ["payments", "Go", "infrastructure"],
         "frontend": ["React", "design systems", "accessibility"], "data_eng": ["streaming", "Spark", "analytics"],
         "analyst": ["operations", "dashboards", "healthcare"], "ml": ["NLP", "recommenders", "MLOps"],
         "sre": ["platform", "on-call", "cloud"], "pm": ["B2B", "data products", "growth"],
         "design": ["UX research", "portfolio", "mobile"], "mobile": ["SwiftUI", "consumer apps", "health"],
         "security": ["detection", "cloud security", "GRC"], "finance": ["FP&A", "SaaS", "banking"],
         "marketing": ["SEO", "content", "growth"], "sales": ["mid-market", "enterprise", "SaaS"],
         "success": ["renewals", "enterprise", "onboarding"]}
SHORT = {"software": "software", "backend": "backend", "frontend": "frontend", "data_eng": "data eng",
         "analyst": "analytics", "ml": "ML", "sre": "SRE", "pm": "PM", "design": "design", "mobile": "iOS",
         "security": "security", "finance": "finance", "marketing": "marketing", "sales": "sales",
         "success": "CS"}
STYLES = [
    lambda n, t, s, f, v: [f"{t} resume", f"{t} resume - {f}", f"Tailored {t.lower()} resume"][v - 1],
    lambda n, t, s, f, v: [f"{n} - {s}", f"{n} - {s} ({f})", f"{n} - {s} tailored"][v - 1],
    lambda n, t, s, f, v: [f"{s[0].upper()}{s[1:]} CV", f"{s[0].upper()}{s[1:]} CV {2025 + (v > 1)}",
                           f"{s[0].upper()}{s[1:]} CV for {f} roles"][v - 1],
    lambda n, t, s, f, v: [f"Resume {s}", f"Resume {s} v{v}", f"Resume {s} - {f} focus"][v - 1],
]
cands_by_id = {c["candidate_id"]: c for c in candidates}
style_of = {c["candidate_id"]: live.randrange(len(STYLES)) for c in candidates}
for row in resumes:
    cid = row["candidate_id"]
    fam = cand_family[cid]
    focus = FOCUS[fam][(row["version"] + int(cid[-2:])) % 3]
    row["title"] = STYLES[style_of[cid]](cands_by_id[cid]["full_name"], FAMILIES[fam][0], SHORT[fam], focus,
                                        row["version"])


def rotate(pool: list[str]):
    """Hand out a pool's texts in shuffled rounds, so no text repeats more than its share."""
    order: list[str] = []
    while True:
        if not order:
            order = list(pool)
            live.shuffle(order)
        yield order.pop()


COVER = rotate([
    "Excited about the {title} role; my background in {skill} fits the team.",
    "I've spent {years} years working with {skill} and would love to bring that to {company}.",
    "The {title} opening is exactly the move I've been looking for. Happy to talk any time.",
    "A former colleague at {company} suggested I apply. {skill} is where I do my best work.",
    "I can start at {company} in June after my notice period. Portfolio and references on request.",
    "I led the {skill} work on my current team and want to do that at a bigger scale at {company}.",
    "Big fan of what {company} is building - applying for the {title} role with {years} years of experience.",
    "Looking for a team that ships often; my last two roles were heavy on {skill}.",
])
for app in applications:
    if app["cover_note"] is None:
        continue
    job = jobs_by_id[app["job_id"]]
    cand = cands_by_id[app["candidate_id"]]
    app["cover_note"] = next(COVER).format(title=job["title"], company=company_by_id[job["company_id"]]["name"],
                                           skill=FAMILIES[cand_family[cand["candidate_id"]]][3][0],
                                           years=cand["years_experience"])

AT_SCREEN = rotate([
    "Other applicants had more hands-on {skill} experience",
    "Not enough relevant experience for a {seniority} role",
    "Team is looking for deeper {skill} background",
    "Resume did not show the {skill} depth the team needs",
    "Moved ahead with candidates closer to the requirements",
    "Hiring manager shortlisted people with {industry} experience",
    "Application came in after the shortlist for {title} was set",
    "Salary expectations above the band for this {title} role",
])
FILLED_BEFORE_REVIEW = rotate(["Position filled before the application was reviewed",
                               "Posting closed before screening started", "Role filled internally"])
AFTER_BAD_ROUND = rotate([
    "Did not pass the {round} round",
    "Feedback from the {round} round was below the bar",
    "Panel wanted more depth on {topic}",
    "Not moving forward after the {round} interview",
    "Technical depth short of what the {department} team needs",
    "Another finalist was stronger in the {round} round",
    "Interviewers had concerns about {topic}",
])
AFTER_GOOD_ROUNDS = rotate([
    "Position filled by another candidate",
    "Team went with an internal transfer",
    "Headcount for {title} was cut in the Q2 budget review",
    "Chose a finalist with more {industry} experience",
    "Role put on hold after a reorganisation",
])
OFFER_LAPSED = rotate(["Offer expired without a reply", "Offer lapsed; the role went to the next finalist",
                       "No answer to the {title} offer by its deadline", "Offer expired; closed by the recruiter",
                       "Candidate stopped responding after the {company} offer"])
RESCINDED = rotate(["Offer rescinded: {title} headcount frozen", "Offer withdrawn after the reference check"])
WITHDRAW = rotate([
    "Relocating is not possible for my family right now",
    "My current team offered a promotion, so I'm staying",
    "The commute would be too long",
    "Salary band is below what I earn today",
    "Taking a few months off before my next role",
    "I want a fully remote role after all",
    "The process was taking too long; I've paused my search",
])
DECLINE = rotate([
    "Base salary is well below my current package",
    "Accepted a counteroffer from my current employer",
    "Not ready to relocate right now",
    "Start date doesn't work with my notice period",
    "Counter not met; the gap in base was too big",
    "Went with a team closer to my long-term goals",
    "Family circumstances changed; staying put for now",
])
ROUND_NAME = {"phone_screen": "phone screen", "technical": "technical", "hiring_manager": "hiring manager",
              "onsite": "onsite", "panel": "panel"}
offer_of = {o["application_id"]: o for o in offers}
for app in applications:
    job = jobs_by_id[app["job_id"]]
    company = company_by_id[job["company_id"]]
    facts = {"title": job["title"], "company": company["name"], "industry": company["industry"],
             "department": job["department"], "seniority": job["seniority"],
             "skill": FAMILIES[job_family[job["job_id"]]][3][-1]}
    offer = offer_of.get(app["application_id"])
    done = [r for r in ivws_of.get(app["application_id"], []) if r["status"] == "completed"]
    if app["stage"] == "rejected":
        if offer is not None:
            app["closed_reason"] = next(RESCINDED if offer["status"] == "rescinded" else OFFER_LAPSED).format(**facts)
        elif not done:
            pool = FILLED_BEFORE_REVIEW if job["status"] in ("closed", "filled") else AT_SCREEN
            app["closed_reason"] = next(pool).format(**facts)
        elif done[-1]["recommendation"] in ("no", "strong_no"):
            last = done[-1]
            topic = next((t for t in TOPICS[last["interview_type"]] if t in (last["feedback"] or "")),
                         TOPICS[last["interview_type"]][0])
            app["closed_reason"] = next(AFTER_BAD_ROUND).format(round=ROUND_NAME[last["interview_type"]],
                                                                topic=topic, **facts)
        else:
            app["closed_reason"] = next(AFTER_GOOD_ROUNDS).format(**facts)
    elif app["stage"] == "withdrawn":
        if offer is not None and offer["status"] == "declined" and offer["decline_reason"] != "Candidate accepted another offer":
            offer["decline_reason"] = next(DECLINE)
            app["closed_reason"] = "Declined offer: " + offer["decline_reason"]
        elif app["closed_reason"] != "Accepted another offer":
            app["closed_reason"] = next(WITHDRAW)

seed = {
    "candidates": candidates,
    "candidate_skills": candidate_skills,
    "companies": companies,
    "recruiters": recruiters,
    "job_postings": jobs,
    "job_skills": job_skills,
    "resumes": resumes,
    "referrals": referrals,
    "applications": applications,
    "interviews": interviews,
    "offers": offers,
    "reminders": reminders,
}

if __name__ == "__main__":
    out = Path(__file__).with_name("seed.json")
    out.write_text(json.dumps(seed, indent=1, ensure_ascii=False) + "\n")
    print({table: len(rows) for table, rows in seed.items()}, sum(len(r) for r in seed.values()))
