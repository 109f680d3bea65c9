"""Deterministic seed for the project_management domain: writes seed.json beside this file.

Run: python generate_seed.py   (no arguments; same output every time)

The world is a multi-tenant project-management service on 2026-05-12: thirty workspaces
(six busy ones with several projects, sprints and approvals, twenty-four smaller ones),
their users, projects with members and roles, tasks with dependencies, estimates and
time logs, comments, labels and approval requests. Near neighbours are deliberate:
workspaces and people with the same or similar names, projects named alike in different
workspaces, repeated task titles and several records of one person in different states.
"""

import json
import math
import random
from datetime import date, timedelta
from pathlib import Path

RNG = random.Random(20260512)
TODAY = date(2026, 5, 12)
CLOCK_TIME = "10:30:00"
LOCK_DAYS = 14

# --------------------------------------------------------------------------- workspaces
# (name, mail domain, plan, status, created_on, [(project name, kind, status), ...])
RICH = [
    ("Brightfield Digital", "brightfield.io", "business", "active", "2021-03-15", [
        ("Website Redesign", "web", "completed"),
        ("Website Redesign Phase 2", "web", "active"),
        ("Harbourline Mobile App", "mobile", "active"),
        ("Client Portal Analytics", "data", "planning"),
    ]),
    ("Tallgrass Engineering", "tallgrass-eng.com", "enterprise", "active", "2019-09-02", [
        ("Cluster Upgrade 2026", "infra", "active"),
        ("SOC 2 Readiness", "compliance", "active"),
        ("Telemetry Warehouse Migration", "data", "on_hold"),
        ("Legacy Backup Retirement", "infra", "archived"),
    ]),
    ("Meridian Health Analytics", "meridianhealth.org", "team", "active", "2022-01-10", [
        ("Readmission Risk Study", "research", "active"),
        ("Clinic Dashboard Refresh", "data", "active"),
        ("Office Move to Dock Street", "office", "completed"),
    ]),
    ("Oakhollow Architects", "oakhollow.design", "team", "active", "2020-06-22", [
        ("Riverside Library Extension", "architecture", "active"),
        ("Greenway Primary School", "architecture", "planning"),
        ("Website Redesign", "web", "on_hold"),
    ]),
    ("Lumen Robotics", "lumenrobotics.com", "business", "active", "2021-11-05", [
        ("Picker Arm Prototype v4", "robotics", "active"),
        ("Field Trial Preparation", "robotics", "active"),
        ("Investor Launch Campaign", "marketing", "completed"),
    ]),
    ("Saltmarsh Publishing", "saltmarshbooks.co.uk", "free", "active", "2023-04-18", [
        ("Autumn Fiction List", "publishing", "active"),
        ("Backlist Ebook Conversion", "publishing", "on_hold"),
        ("Spring Poetry Anthology", "publishing", "completed"),
        ("Book Fair Stand 2025", "marketing", "archived"),
    ]),
]

SMALL = [
    ("Kestrel Legal Partners", "kestrel-legal.com", "team", "active", "2022-08-01", ("Document Management Rollout", "compliance", "active")),
    ("Pinecrest College IT", "pinecrest.edu", "business", "active", "2020-02-12", ("Campus Wi-Fi Refresh", "infra", "active")),
    ("Verity Accounting Group", "verity-accounting.com", "team", "active", "2021-05-30", ("Year-End Close Automation", "data", "planning")),
    ("Harbor & Vine Interiors", "harborvine.studio", "free", "active", "2024-01-08", ("Showroom Website Redesign", "web", "active")),
    ("Quarry Lane Brewing", "quarrylane.beer", "free", "active", "2024-03-19", ("Brand Refresh Campaign", "marketing", "active")),
    ("Bluestem Nonprofit Alliance", "bluestem.ngo", "free", "active", "2023-07-11", ("Volunteer Portal", "web", "planning")),
    ("Cobalt Security Labs", "cobaltsec.io", "enterprise", "active", "2019-04-03", ("Pen Test Remediation Q2", "compliance", "active")),
    ("Atlas Geospatial", "atlasgeo.net", "business", "active", "2020-10-27", ("Satellite Tile Pipeline", "data", "active")),
    ("Fernwood Veterinary Group", "fernwoodvets.com", "team", "active", "2022-12-05", ("Clinic Network Upgrade", "infra", "on_hold")),
    ("Granite Peak Consulting", "granitepeak.co", "team", "active", "2021-08-16", ("Client Onboarding Playbook", "office", "active")),
    ("Orchard Street Films", "orchardstreet.film", "free", "active", "2024-06-02", ("Documentary Festival Push", "marketing", "active")),
    ("Ironbridge Manufacturing", "ironbridge-mfg.com", "enterprise", "active", "2018-11-20", ("Line 3 Robot Cell", "robotics", "active")),
    ("Clearwater Environmental", "clearwater-env.org", "team", "active", "2021-02-09", ("River Sampling Study", "research", "active")),
    ("Summit Ridge Schools", "summitridge.school", "business", "active", "2020-07-14", ("Parent App Launch", "mobile", "planning")),
    ("Nimbus Cloud Ops", "nimbusops.cloud", "business", "active", "2022-03-28", ("Multi-Region Failover", "infra", "active")),
    ("Tidewater Marine Research", "tidewater-marine.org", "team", "suspended", "2021-09-13", ("Reef Survey Data Platform", "research", "on_hold")),
    ("Juniper & Co. Marketing", "juniperco.agency", "team", "active", "2023-02-20", ("Spring Campaign for Halden Foods", "marketing", "active")),
    ("Crescent Biotech", "crescentbio.com", "business", "active", "2020-05-06", ("Lab Inventory System", "data", "active")),
    ("Foxglove Games", "foxglovegames.com", "team", "active", "2022-10-31", ("Lanternfall Chapter 2", "games", "active")),
    ("Ember Energy Cooperative", "emberenergy.coop", "free", "suspended", "2023-11-14", ("Member Newsletter Relaunch", "marketing", "on_hold")),
    ("Brightfield Labs", "brightfieldlabs.com", "team", "active", "2023-05-25", ("Website Redesign", "web", "active")),
    ("Meridian Health Partners", "meridianpartners.health", "business", "active", "2021-12-01", ("Patient Survey Analysis", "research", "active")),
    ("Willowbank Events", "willowbank.events", "free", "active", "2024-09-09", ("Annual Conference 2026", "office", "active")),
    ("Northgate Civil Works", "northgate-civil.com", "business", "active", "2019-06-17", ("Bridge Inspection Reports", "architecture", "completed")),
]

FIRST = ("Amara Ben Chloe Dmitri Elena Farah Gabriel Hana Isaac Jonas Keiko Liam Maya Nikhil Olivia Pedro "
         "Quinn Rosa Samir Tessa Umar Valentina Wei Ximena Yusuf Zoe Aisha Bruno Carmen Diego Esther Felix "
         "Grace Hugo Ines Jamal Kofi Lena Marco Noor Oscar Petra Rahul Sana Tomas Uma Victor Wren").split()
LAST = ("Okafor Lindqvist Haddad Novak Moreau Tanaka Raman Costa Mbeki Fischer O'Neill Castillo Petrov "
        "Adeyemi Brennan Kowalski Nakamura Silva Hughes Varga Osei Jensen Ferreira Quist Delgado Abbott "
        "Whitfield Sorensen Iyer Marchetti Ross Baptiste Kaur Holm Ward").split()

RICH_PEOPLE = [
    # Brightfield Digital
    [("Priya Raman", "Delivery Director"), ("Tom Whitfield", "Senior Frontend Engineer"),
     ("Sofia Marin", "Product Designer"), ("Sofia Martin", "QA Analyst"), ("Kwame Mensah", "Backend Engineer"),
     ("Lucy Zhang", "Mobile Engineer"), ("Daniel Park", "Data Engineer"), ("Hannah Schultz", "Account Manager"),
     ("Ravi Menon", "Frontend Engineer")],
    # Tallgrass Engineering
    [("Daniel Okafor", "Head of Platform"), ("Daniel Okafor", "Site Reliability Engineer"),
     ("Ingrid Solberg", "Security Lead"), ("Marcus Bell", "DevOps Engineer"), ("Aiko Tanaka", "Compliance Analyst"),
     ("Felipe Rocha", "Data Architect"), ("Nadia Haddad", "Engineering Manager"), ("Owen Gallagher", "Platform Engineer"),
     ("Beatriz Lopes", "Technical Writer")],
    # Meridian Health Analytics
    [("Priya Raman", "Biostatistician"), ("Eleanor Voss", "Research Director"), ("Jamal Carter", "Data Scientist"),
     ("Mei Lin", "Clinical Informatics Lead"), ("George Adebayo", "BI Developer"), ("Clara Jensen", "Operations Manager"),
     ("Samuel Ortiz", "Data Analyst"), ("Ruth Abernathy", "Office Manager")],
    # Oakhollow Architects
    [("Fiona McAllister", "Principal Architect"), ("Henrik Dahl", "Project Architect"),
     ("Layla Nasser", "Architectural Designer"), ("Patrick Doyle", "Structural Coordinator"),
     ("Yara Haddad", "Interior Designer"), ("Chen Wu", "BIM Technician"), ("Oliver Grant", "Marketing Coordinator"),
     ("Danielle Park", "Web Developer")],
    # Lumen Robotics
    [("Viktor Petrov", "CTO"), ("Alicia Fernandez", "Robotics Engineer"), ("Sunil Kapoor", "Firmware Engineer"),
     ("Grace Mwangi", "Mechanical Engineer"), ("Tobias Keller", "Test Engineer"), ("Maya Goldberg", "Product Marketing Manager"),
     ("Hiro Sato", "Controls Engineer"), ("Emma Laurent", "Field Operations Lead"), ("Tom Whitfield", "Hardware Technician")],
    # Saltmarsh Publishing
    [("Margaret Ellis", "Publisher"), ("Rowan Pike", "Senior Editor"), ("Isabel Crane", "Copy Editor"),
     ("Jude Okonkwo", "Production Editor"), ("Phoebe Hart", "Publicist"), ("Arthur Lyle", "Rights Manager")],
]

JOB_TITLES = ("Project Manager", "Operations Lead", "Analyst", "Engineer", "Designer", "Coordinator", "Consultant",
              "Marketing Specialist", "Team Lead", "Administrator")

# --------------------------------------------------------------------------- task pools
# kind -> [(title, estimate hours, needs approval)]
TASKS = {
    "web": [("Audit current site navigation", 6, 0), ("Draft sitemap for new information architecture", 8, 1),
            ("Design homepage wireframes", 12, 1), ("Design product page mockups", 16, 1),
            ("Build responsive header component", 10, 0), ("Implement contact form with spam protection", 8, 0),
            ("Migrate blog posts to new CMS", 20, 0), ("Set up staging environment", 5, 0),
            ("Write accessibility test plan", 6, 0), ("Fix broken links reported by crawler", 3, 0),
            ("Optimise hero images for mobile", 4, 0), ("Configure analytics events", 6, 0),
            ("Review homepage copy with marketing", 2, 1), ("Launch checklist sign-off", 3, 1)],
    "mobile": [("Define push notification strategy", 6, 1), ("Implement biometric login", 18, 0),
               ("Refactor offline sync queue", 24, 0), ("Design onboarding screens", 12, 1),
               ("Add dark mode support", 14, 0), ("Fix crash on Android 14 camera permission", 5, 0),
               ("Update App Store screenshots", 4, 1), ("Write release notes for v3.2", 2, 1),
               ("Instrument screen load performance", 8, 0), ("Beta test with pilot customers", 16, 0),
               ("Localise app into Spanish and German", 20, 0), ("Security review of token storage", 10, 1)],
    "data": [("Inventory legacy ETL jobs", 8, 0), ("Design warehouse star schema", 16, 1),
             ("Migrate orders pipeline to dbt", 30, 0), ("Backfill 2024 event data", 12, 0),
             ("Set up data quality checks", 10, 0), ("Build revenue dashboard", 18, 1),
             ("Document column-level lineage", 8, 0), ("Decommission old reporting server", 6, 1),
             ("Tune nightly load performance", 12, 0), ("Define PII masking rules", 6, 1),
             ("Validate migrated row counts", 5, 0), ("Train analysts on new models", 4, 0)],
    "infra": [("Upgrade Kubernetes cluster to 1.30", 24, 1), ("Rotate TLS certificates", 3, 0),
              ("Move backups to object storage", 14, 0), ("Write incident runbook for database failover", 8, 1),
              ("Set up cost alerts", 4, 0), ("Migrate CI runners", 16, 0), ("Patch base images", 6, 0),
              ("Load test API gateway", 10, 0), ("Enable single sign-on for admin console", 12, 1),
              ("Consolidate logging pipeline", 20, 0), ("Review firewall rules", 5, 1),
              ("Disaster recovery drill", 8, 1)],
    "marketing": [("Draft campaign brief", 6, 1), ("Produce launch video storyboard", 10, 1),
                  ("Write three blog articles", 12, 0), ("Design social media assets", 8, 0),
                  ("Set up email nurture sequence", 10, 0), ("Plan webinar agenda", 4, 0),
                  ("Update brand guidelines", 12, 1), ("Coordinate press release", 6, 1),
                  ("Build landing page", 14, 0), ("Analyse campaign results", 6, 0),
                  ("Brief external photographer", 2, 0), ("Translate brochure", 5, 0)],
    "architecture": [("Site survey and measurements", 12, 0), ("Concept sketches for entrance hall", 16, 1),
                     ("Prepare planning permission drawings", 30, 1), ("Structural engineer consultation", 6, 0),
                     ("Material samples review with client", 4, 1), ("Lighting plan", 10, 0),
                     ("Update 3D model after client feedback", 12, 0), ("Tender package for contractors", 20, 1),
                     ("Fire safety compliance check", 8, 1), ("Accessibility ramp design", 8, 0),
                     ("Cost estimate revision", 6, 0), ("Final drawings sign-off", 4, 1)],
    "robotics": [("Calibrate gripper force sensors", 10, 0), ("Write firmware for motor controller", 30, 0),
                 ("Design battery enclosure", 16, 1), ("Run thermal stress test", 12, 0),
                 ("Integrate lidar driver", 18, 0), ("Path planning unit tests", 10, 0),
                 ("Assemble prototype unit 4", 14, 0), ("Document safety interlocks", 8, 1),
                 ("Order replacement servos", 2, 0), ("Review CE certification requirements", 6, 1),
                 ("Tune PID parameters", 8, 0), ("Field trial risk assessment", 6, 1)],
    "publishing": [("Copyedit chapters 1-4", 16, 0), ("Commission cover illustration", 4, 1),
                   ("Typeset interior layout", 20, 0), ("Proofread final galleys", 12, 0),
                   ("Secure permissions for quoted material", 6, 1), ("Write back-cover blurb", 2, 1),
                   ("Prepare ebook conversion", 8, 0), ("Send advance copies to reviewers", 3, 0),
                   ("Update author contract", 4, 1), ("Compile index", 10, 0), ("Plan launch event", 6, 0),
                   ("Register ISBNs", 1, 0)],
    "compliance": [("Gap assessment against SOC 2 controls", 16, 0), ("Write access control policy", 8, 1),
                   ("Collect evidence for change management", 10, 0), ("Run phishing awareness training", 6, 0),
                   ("Send vendor risk questionnaires", 8, 0), ("Configure audit logging", 12, 0),
                   ("Quarterly access review", 6, 1), ("Draft incident response plan", 10, 1),
                   ("Penetration test remediation", 24, 0), ("Auditor kickoff meeting", 2, 0),
                   ("Define data retention schedule", 6, 1), ("Board summary report", 4, 1)],
    "research": [("Define cohort inclusion criteria", 8, 1), ("Clean encounter dataset", 20, 0),
                 ("Build readmission risk model", 30, 0), ("Validate model on holdout data", 12, 0),
                 ("Write statistical analysis plan", 10, 1), ("Prepare ethics board submission", 12, 1),
                 ("Literature review", 16, 0), ("Present findings to steering committee", 4, 1),
                 ("Pseudonymise identifiers", 6, 0), ("Run sensitivity analysis", 10, 0),
                 ("Draft manuscript methods section", 12, 1), ("Build summary dashboard", 14, 0)],
    "office": [("Shortlist candidate locations", 8, 0), ("Negotiate lease terms", 10, 1), ("Plan desk layout", 6, 0),
               ("Order furniture", 4, 1), ("Arrange network cabling", 6, 0), ("Schedule movers", 2, 0),
               ("Update address with suppliers", 3, 0), ("Write staff communication plan", 4, 0),
               ("Set up meeting room booking", 3, 0), ("Dispose of old equipment", 4, 0),
               ("Install security badge system", 8, 1), ("Opening day checklist", 3, 0)],
    "games": [("Prototype combat loop", 24, 0), ("Level design for chapter 2", 30, 1), ("Compose main theme", 16, 1),
              ("Implement save system", 18, 0), ("Playtest session with 20 players", 8, 0),
              ("Fix memory leak in particle system", 6, 0), ("Store page assets", 8, 1),
              ("Controller remapping", 10, 0), ("Localisation string freeze", 4, 1),
              ("Performance pass on handheld build", 20, 0), ("Achievement list", 4, 0), ("Capture trailer footage", 6, 0)],
}

DESCRIPTIONS = (
    "Acceptance criteria are in the linked brief; check with the project lead before changing scope.",
    "Carry-over from the last planning session. Keep notes of any decisions in the comments.",
    "Client flagged this in the last status call.",
    "Needs a second pair of eyes before it is marked ready for review.",
    "Timebox this; if it runs over the estimate, raise it at stand-up.",
    "See the shared drive folder for reference material.",
)

MILESTONES = {
    "web": ("Design sign-off", "Content freeze", "Go-live"),
    "mobile": ("Feature complete", "Beta release", "Store release"),
    "data": ("Schema approved", "Pipeline cut-over", "Dashboards live"),
    "infra": ("Staging upgraded", "Production cut-over", "Runbooks published"),
    "marketing": ("Creative approved", "Campaign launch", "Results review"),
    "architecture": ("Concept approval", "Planning submission", "Tender issued"),
    "robotics": ("Prototype assembled", "Lab validation", "Field trial start"),
    "publishing": ("Manuscript delivered", "Proofs approved", "Publication day"),
    "compliance": ("Policies drafted", "Evidence collected", "Audit window opens"),
    "research": ("Protocol approved", "Analysis complete", "Report delivered"),
    "office": ("Lease signed", "Fit-out complete", "Move day"),
    "games": ("Vertical slice", "Content lock", "Chapter release"),
}

COMMENTS = (
    "Pushed a first draft, feedback welcome before Thursday.",
    "Blocked until we get the credentials from the client.",
    "I can pair on this tomorrow afternoon if that helps.",
    "Moved the estimate up: the scope grew after the review call.",
    "Looks good to me, a couple of small notes inline.",
    "Client asked whether this can land before the next demo.",
    "Waiting on legal to confirm the wording.",
    "Done on my side, handing over for review.",
    "This overlaps with the ticket we closed last sprint; reusing that work.",
    "Raised the risk at stand-up, no change to the plan for now.",
    "Attached the updated numbers to the shared folder.",
    "Can we split this in two? The second half depends on the vendor.",
)

LOG_NOTES = (None, None, "Pairing session", "Review and fixes", "Research", "Client call", "Implementation",
             "Testing", "Documentation")

LABELS_RICH = (("bug", "#d73a4a"), ("feature", "#0e8a16"), ("design", "#a2eeef"), ("tech-debt", "#fbca04"),
               ("client-request", "#1d76db"), ("blocked", "#b60205"))
LABELS_SMALL = (("urgent", "#e11d21"), ("documentation", "#0075ca"), ("feature", "#0e8a16"))

SPRINT_CALENDAR = (  # closed, closed, closed, active, planned, planned
    ("2026-03-23", "2026-04-05"), ("2026-04-06", "2026-04-19"), ("2026-04-20", "2026-05-03"),
    ("2026-05-04", "2026-05-17"), ("2026-05-18", "2026-05-31"), ("2026-06-01", "2026-06-14"),
)


def d(value):
    return date.fromisoformat(value)


def iso(value):
    return value.isoformat()


def between(lo, hi):
    if hi <= lo:
        return lo
    return lo + timedelta(days=RNG.randint(0, (hi - lo).days))


def weekday_between(lo, hi):
    day = between(lo, hi)
    while day.weekday() >= 5 and day > lo:
        day -= timedelta(days=1)
    return day


def build():
    t = {name: [] for name in ("workspaces", "users", "projects", "project_members", "sprints", "milestones",
                                "tasks", "task_dependencies", "time_logs", "comments", "labels", "task_labels",
                                "approvals")}
    counters = {}

    def new_id(prefix):
        counters[prefix] = counters.get(prefix, 0) + 1
        return f"{prefix}-{counters[prefix]:05d}"

    daily_hours = {}  # (user_id, date) -> hours logged
    users_by_ws = {}
    emails = set()

    def add_user(ws_id, domain, full_name, title, joined, status="active"):
        first, last = full_name.lower().replace("'", "").split(" ", 1)
        base = f"{first}.{last.replace(' ', '')}"
        email = f"{base}@{domain}"
        n = 2
        while email in emails:
            email = f"{first[0]}.{last.replace(' ', '')}{n if n > 2 else ''}@{domain}"
            n += 1
        emails.add(email)
        row = {"user_id": new_id("USR"), "workspace_id": ws_id, "full_name": full_name, "email": email,
               "job_title": title, "status": status, "joined_on": joined}
        t["users"].append(row)
        users_by_ws.setdefault(ws_id, []).append(row)
        return row

    specs = []  # (ws_row, projects spec, people)
    for name, domain, plan, status, created, projects in RICH:
        ws = {"workspace_id": new_id("WS"), "name": name, "plan": plan, "status": status,
              "billing_email": f"billing@{domain}", "created_on": created}
        t["workspaces"].append(ws)
        specs.append((ws, domain, projects, True))
    for name, domain, plan, status, created, project in SMALL:
        ws = {"workspace_id": new_id("WS"), "name": name, "plan": plan, "status": status,
              "billing_email": f"accounts@{domain}", "created_on": created}
        t["workspaces"].append(ws)
        specs.append((ws, domain, [project], False))

    # users
    for index, (ws, domain, _projects, rich) in enumerate(specs):
        ws_created = d(ws["created_on"])
        if rich:
            people = RICH_PEOPLE[index]
        else:
            people = []
            while len(people) < 3:
                full = f"{RNG.choice(FIRST)} {RNG.choice(LAST)}"
                if full not in [p[0] for p in people]:
                    people.append((full, RNG.choice(JOB_TITLES)))
            if ws["name"] == "Brightfield Labs":
                people[1] = ("Priya Raman", "Studio Lead")
        for pos, (full, title) in enumerate(people):
            joined = between(ws_created, date(2026, 1, 31))
            add_user(ws["workspace_id"], domain, full, title, iso(joined))
        # one deactivated former colleague in most workspaces
        if rich or index % 4 == 0:
            full = f"{RNG.choice(FIRST)} {RNG.choice(LAST)}"
            add_user(ws["workspace_id"], domain, full, RNG.choice(JOB_TITLES), iso(between(ws_created, date(2025, 6, 30))),
                     status="deactivated")

    # labels
    labels_by_ws = {}
    for ws, _domain, _projects, rich in specs:
        chosen = LABELS_RICH if rich else LABELS_SMALL[: 1 + (int(ws["workspace_id"][-2:]) % 2)]
        for lname, color in chosen:
            row = {"label_id": new_id("LBL"), "workspace_id": ws["workspace_id"], "name": lname, "color": color}
            t["labels"].append(row)
            labels_by_ws.setdefault(ws["workspace_id"], []).append(row)

    # projects, members, sprints, milestones, tasks
    for ws, _domain, projects, rich in specs:
        ws_users = users_by_ws[ws["workspace_id"]]
        active_users = [u for u in ws_users if u["status"] == "active"]
        for pname, kind, pstatus in projects:
            make_project(t, new_id, ws, rich, pname, kind, pstatus, ws_users, active_users, labels_by_ws, daily_hours)
    return t


def project_dates(pstatus):
    if pstatus == "planning":
        start = between(date(2026, 5, 18), date(2026, 6, 15))
        created = between(date(2026, 4, 1), date(2026, 5, 8))
        target = start + timedelta(days=RNG.choice((60, 90, 120)))
    elif pstatus == "active":
        start = between(date(2026, 1, 12), date(2026, 3, 20))
        created = start - timedelta(days=RNG.randint(5, 30))
        target = between(date(2026, 6, 15), date(2026, 10, 30))
    elif pstatus == "on_hold":
        start = between(date(2025, 11, 3), date(2026, 2, 2))
        created = start - timedelta(days=RNG.randint(5, 30))
        target = between(date(2026, 5, 29), date(2026, 9, 30))
    elif pstatus == "completed":
        start = between(date(2025, 10, 6), date(2026, 1, 12))
        created = start - timedelta(days=RNG.randint(5, 30))
        target = between(date(2026, 3, 2), date(2026, 4, 24))
    else:  # archived
        start = between(date(2025, 3, 3), date(2025, 6, 2))
        created = start - timedelta(days=RNG.randint(5, 30))
        target = between(date(2025, 9, 1), date(2025, 11, 28))
    return created, start, target


STATUS_WEIGHTS = {
    "planning": (("backlog", 6), ("todo", 4)),
    "active": (("done", 34), ("in_review", 12), ("in_progress", 20), ("todo", 16), ("backlog", 13), ("cancelled", 5)),
    "on_hold": (("done", 30), ("in_progress", 20), ("todo", 30), ("backlog", 20)),
    "completed": (("done", 85), ("cancelled", 15)),
    "archived": (("done", 85), ("cancelled", 15)),
}
RANK = {"done": 0, "in_review": 1, "in_progress": 2, "todo": 3, "backlog": 4, "cancelled": 5}


def weighted(pairs):
    total = sum(w for _, w in pairs)
    pick = RNG.uniform(0, total)
    for value, weight in pairs:
        pick -= weight
        if pick <= 0:
            return value
    return pairs[-1][0]


def make_project(t, new_id, ws, rich, pname, kind, pstatus, ws_users, active_users, labels_by_ws, daily_hours):
    created, start, target = project_dates(pstatus)
    created = max(created, d(ws["created_on"]))
    lead = active_users[0] if rich or RNG.random() < 0.5 else active_users[1]
    # a couple of leads differ from the workspace's first person
    if rich and pname in ("Harbourline Mobile App", "SOC 2 Readiness", "Clinic Dashboard Refresh",
                          "Field Trial Preparation", "Backlist Ebook Conversion"):
        lead = active_users[2]
    project = {"project_id": new_id("PRJ"), "workspace_id": ws["workspace_id"], "name": pname, "status": pstatus,
               "lead_user_id": lead["user_id"], "start_date": iso(start), "target_date": iso(target),
               "budget_hours": 0, "description": None, "created_on": iso(created)}
    if RNG.random() < 0.7:
        project["description"] = f"{pname}: {RNG.choice(('internal initiative', 'client engagement', 'quarterly objective', 'funded programme'))} run by the {ws['name']} team."
    t["projects"].append(project)
    pid = project["project_id"]

    # members
    members = [(lead, "owner")]
    others = [u for u in ws_users if u is not lead]
    RNG.shuffle(others)
    if ws["plan"] == "free":
        count = 4 if pname != "Autumn Fiction List" else 4  # lead + 4 = 5 = the free-plan cap
        if pname in ("Backlist Ebook Conversion", "Spring Poetry Anthology", "Book Fair Stand 2025"):
            count = 3
    else:
        count = RNG.randint(4, 6) if rich else min(len(others), 3)
    chosen = [u for u in others if u["status"] == "active"][:count]
    if pstatus in ("completed", "archived") and rich:
        inactive = [u for u in others if u["status"] != "active"]
        chosen = chosen[:-1] + inactive[:1] if inactive else chosen
    roles = ["manager"] + ["contributor"] * (len(chosen) - 1)
    if rich and len(chosen) >= 4:
        roles[-1] = "viewer"
    if not rich and len(chosen) >= 3 and RNG.random() < 0.5:
        roles[-1] = "viewer"
    for user, role in zip(chosen, roles):
        members.append((user, role))
    for user, role in members:
        joined = max(created, d(user["joined_on"]))
        t["project_members"].append({"project_id": pid, "user_id": user["user_id"], "role": role,
                                     "joined_on": iso(joined)})
    workers = [u for u, r in members if r != "viewer" and u["status"] == "active"]
    workers_any = [u for u, r in members if r != "viewer"]
    approvers = [u for u, r in members if r in ("owner", "manager") and u["status"] == "active"]
    everyone = [u for u, _ in members]

    # milestones
    ms_names = MILESTONES[kind]
    n_ms = 2 if rich else 1
    milestones = []
    span = (target - start).days
    for i in range(n_ms):
        due = start + timedelta(days=span * (i + 1) // (n_ms + (0 if i == n_ms - 1 else 1)))
        ms = {"milestone_id": new_id("MS"), "project_id": pid, "name": ms_names[i if n_ms == 2 else 2],
              "due_date": iso(due), "status": "open", "reached_on": None}
        milestones.append(ms)
        t["milestones"].append(ms)

    # sprints
    sprints = {}
    if rich and pstatus in ("active", "on_hold", "completed"):
        if pstatus == "active":
            plan = [("closed", 1), ("closed", 2), ("active", 3), ("planned", 4)]
            if start > date(2026, 3, 23):
                plan = plan[1:]
            if RNG.random() < 0.4:
                plan.append(("planned", 5))
        elif pstatus == "on_hold":
            plan = [("closed", 0), ("closed", 1)]
        else:
            plan = []
        for number, (sstatus, slot) in enumerate(plan, start=1):
            s_start, s_end = SPRINT_CALENDAR[slot]
            if pstatus == "on_hold" and s_start > iso(TODAY):
                continue
            sprint = {"sprint_id": new_id("SPR"), "project_id": pid, "name": f"Sprint {number + 6 * (slot > 2)}",
                      "goal": None, "start_date": s_start, "end_date": s_end, "capacity_hours": 0,
                      "status": sstatus, "closed_on": iso(d(s_end) + timedelta(days=1)) if sstatus == "closed" else None}
            sprint["name"] = f"Sprint {slot + 10}"
            if RNG.random() < 0.6:
                sprint["goal"] = RNG.choice(("Ship the items promised at the last client demo.",
                                             "Clear the review queue and close open defects.",
                                             "Finish the groundwork for the next milestone.",
                                             "Reduce carry-over; only commit estimated work."))
            sprints.setdefault(sstatus, []).append(sprint)
            t["sprints"].append(sprint)
    elif pstatus == "planning" and rich:
        sprint = {"sprint_id": new_id("SPR"), "project_id": pid, "name": "Sprint 1", "goal": "Kick-off and discovery.",
                  "start_date": iso(start), "end_date": iso(start + timedelta(days=13)), "capacity_hours": 60,
                  "status": "planned", "closed_on": None}
        sprints.setdefault("planned", []).append(sprint)
        t["sprints"].append(sprint)

    # tasks
    pool = list(TASKS[kind])
    RNG.shuffle(pool)
    n_tasks = RNG.randint(6, 8) if rich else RNG.randint(3, 4)
    chosen_tasks = pool[:n_tasks]
    if rich and kind == "web" and pname.endswith("Phase 2"):
        # near-duplicate titles inside one project
        chosen_tasks.append(("Update onboarding email template", 3, 0))
        chosen_tasks.append(("Update onboarding email copy", 2, 0))
    drafts = []
    for title, est, approval in chosen_tasks:
        status = weighted(STATUS_WEIGHTS[pstatus])
        drafts.append({"title": title, "est": float(est), "approval": approval, "status": status})
    if pstatus == "active" and rich:  # make sure every active rich project has work in each state
        wanted = ["done", "done", "in_progress", "in_review", "todo", "backlog"]
        for draft, status in zip(drafts, wanted):
            draft["status"] = status
    drafts.sort(key=lambda x: RANK[x["status"]])

    end_of_work = min(TODAY - timedelta(days=1), target) if pstatus in ("completed", "archived") else TODAY
    if pstatus == "on_hold":
        end_of_work = date(2026, 4, 10)
    budget = 0.0
    task_rows = []
    for draft in drafts:
        status = draft["status"]
        task_created = between(max(created, start - timedelta(days=7)), min(end_of_work - timedelta(days=6), TODAY))
        if pstatus == "planning":
            task_created = between(created, TODAY - timedelta(days=1))
        estimate = draft["est"]
        if status == "backlog" and RNG.random() < 0.35:
            estimate = None
        elif estimate is not None and RNG.random() < 0.3:
            estimate = max(1.0, estimate + RNG.choice((-2.0, -1.0, 1.5, 4.0)))
        budget += estimate or 6
        assignee = None
        if status in ("in_progress", "in_review", "done"):
            assignee = RNG.choice(workers if status != "done" else workers_any)
        elif status in ("todo", "cancelled") or RNG.random() < 0.3:
            assignee = RNG.choice(workers) if RNG.random() < 0.8 else None
        reporter = RNG.choice([u for u, r in members if r in ("owner", "manager")] + [RNG.choice(everyone)])
        completed = None
        if status == "done":
            completed = between(task_created + timedelta(days=2), end_of_work - timedelta(days=1))
            if completed > TODAY - timedelta(days=1):
                completed = TODAY - timedelta(days=1)
        due = None
        if RNG.random() < 0.65:
            due = task_created + timedelta(days=RNG.choice((7, 10, 14, 21, 28, 35)))
        needs_approval = draft["approval"]
        if needs_approval and not [a for a in approvers if assignee is None or a is not assignee]:
            needs_approval = 0
        if needs_approval and status in ("in_review", "done", "in_progress") and len(
                [a for a in approvers if a is not assignee]) == 0:
            needs_approval = 0
        row = {"task_id": None, "project_id": pid, "title": draft["title"],
               "description": RNG.choice(DESCRIPTIONS) if RNG.random() < 0.4 else None,
               "status": status, "priority": weighted((("low", 2), ("medium", 5), ("high", 3), ("urgent", 1))),
               "assignee_user_id": assignee["user_id"] if assignee else None,
               "reporter_user_id": reporter["user_id"], "sprint_id": None, "milestone_id": None,
               "estimate_hours": estimate, "logged_hours": 0.0, "due_date": iso(due) if due else None,
               "requires_approval": needs_approval, "created_on": iso(task_created),
               "completed_on": iso(completed) if completed else None}
        task_rows.append((row, assignee))
    # ids in creation order
    for row, _ in sorted(task_rows, key=lambda pair: (pair[0]["created_on"], pair[0]["title"])):
        row["task_id"] = new_id("TSK")
    project["budget_hours"] = int(math.ceil(budget * 4 / 10.0) * 10)

    # sprint membership
    by_status = {}
    for row, _ in task_rows:
        by_status.setdefault(row["status"], []).append(row)
    closed = sprints.get("closed", [])
    active = sprints.get("active", [])
    planned = sprints.get("planned", [])
    for row, _ in task_rows:
        if row["status"] == "done" and closed + active:
            for sprint in closed + active:
                if sprint["start_date"] <= row["completed_on"] <= sprint["end_date"]:
                    row["sprint_id"] = sprint["sprint_id"]
        elif row["status"] in ("in_progress", "in_review") and active:
            row["sprint_id"] = active[0]["sprint_id"]
        elif row["status"] == "todo" and row["estimate_hours"] is not None:
            if active and RNG.random() < 0.5:
                row["sprint_id"] = active[0]["sprint_id"]
            elif planned and planned[0]["start_date"] < "2026-06-01" and RNG.random() < 0.7:
                row["sprint_id"] = planned[0]["sprint_id"]
        if row["sprint_id"] and row["estimate_hours"] is None:
            row["estimate_hours"] = 4.0
    for sprint in closed + active + planned:
        committed = sum(r["estimate_hours"] or 0 for r, _ in task_rows if r["sprint_id"] == sprint["sprint_id"])
        slack = RNG.choice((4, 8, 12, 16, 24, 32))
        if sprint["status"] == "planned" and pname in ("Website Redesign Phase 2", "Picker Arm Prototype v4"):
            slack = 2  # nearly full: the next estimated task will not fit
        if sprint["status"] == "planned" and slack == 2:
            sprint["capacity_hours"] = max(int(math.ceil(committed)) + 2, 12)
        elif sprint["capacity_hours"] == 0 or committed > sprint["capacity_hours"]:
            sprint["capacity_hours"] = max(int(math.ceil(committed)) + slack, 24)

    # milestones: link tasks
    for row, _ in task_rows:
        if milestones and row["status"] != "backlog" and RNG.random() < 0.5:
            row["milestone_id"] = RNG.choice(milestones)["milestone_id"]
    for ms in milestones:
        linked = [r for r, _ in task_rows if r["milestone_id"] == ms["milestone_id"]]
        closed_all = linked and all(r["status"] in ("done", "cancelled") for r in linked)
        done_dates = [r["completed_on"] for r in linked if r["completed_on"]]
        if closed_all and done_dates and (ms["due_date"] < iso(TODAY) or RNG.random() < 0.5):
            ms["status"] = "reached"
            ms["reached_on"] = max(done_dates)
        elif ms["due_date"] < iso(TODAY) and pstatus != "planning":
            ms["status"] = "missed" if not closed_all else "reached"
            if ms["status"] == "reached":
                ms["reached_on"] = max(done_dates) if done_dates else ms["due_date"]

    # dependencies: a started task only depends on finished ones
    ordered = [r for r, _ in sorted(task_rows, key=lambda pair: RANK[pair[0]["status"]])]
    for i, row in enumerate(ordered):
        if row["status"] == "cancelled" or i == 0 or RNG.random() > 0.35:
            continue
        if row["status"] in ("in_progress", "in_review", "done"):
            candidates = [c for c in ordered[:i] if c["status"] == "done" and c["created_on"] <= row["created_on"]]
        else:
            candidates = [c for c in ordered[:i] if c["status"] != "cancelled"]
        if not candidates:
            continue
        dep = RNG.choice(candidates)
        t["task_dependencies"].append({"task_id": row["task_id"], "depends_on_task_id": dep["task_id"],
                                       "created_on": max(row["created_on"], dep["created_on"])})

    # time logs
    for row, assignee in task_rows:
        if row["status"] not in ("in_progress", "in_review", "done") or assignee is None:
            continue
        lo = d(row["created_on"]) + timedelta(days=1)
        hi = d(row["completed_on"]) if row["completed_on"] else min(end_of_work, TODAY)
        for _ in range(RNG.choice((1, 1, 2, 2, 3))):
            logger = assignee
            if RNG.random() < 0.15:
                logger = RNG.choice(workers_any)
            work = weekday_between(lo, hi)
            if work > TODAY:
                continue
            hours = RNG.choice((0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0))
            key = (logger["user_id"], work)
            if daily_hours.get(key, 0) + hours > 12:
                continue
            daily_hours[key] = daily_hours.get(key, 0) + hours
            logged_at = f"{iso(work)}T{RNG.randint(16, 18)}:{RNG.choice(('05', '20', '35', '50'))}:00"
            if work == TODAY:
                logged_at = f"{iso(work)}T09:{RNG.choice(('05', '20', '35', '50'))}:00"
            t["time_logs"].append({"time_log_id": None, "task_id": row["task_id"], "user_id": logger["user_id"],
                                   "work_date": iso(work), "hours": hours, "billable": 0 if RNG.random() < 0.2 else 1,
                                   "note": RNG.choice(LOG_NOTES), "logged_at": logged_at})
            row["logged_hours"] += hours

    # comments
    for row, assignee in task_rows:
        if row["status"] == "backlog" or RNG.random() > 0.3:
            continue
        for _ in range(RNG.choice((1, 1, 2))):
            author = assignee if assignee is not None and RNG.random() < 0.5 else RNG.choice(everyone)
            hi = d(row["completed_on"]) if row["completed_on"] else min(end_of_work, TODAY - timedelta(days=1))
            when = between(d(row["created_on"]), hi)
            t["comments"].append({"comment_id": None, "task_id": row["task_id"], "author_user_id": author["user_id"],
                                  "body": RNG.choice(COMMENTS),
                                  "created_at": f"{iso(when)}T{RNG.randint(8, 17):02d}:{RNG.randint(0, 59):02d}:00"})

    # labels
    ws_labels = labels_by_ws.get(ws["workspace_id"], [])
    for row, _ in task_rows:
        if not ws_labels:
            break
        for label in RNG.sample(ws_labels, k=min(len(ws_labels), RNG.choice((0, 0, 0, 1, 1, 2)))):
            t["task_labels"].append({"task_id": row["task_id"], "label_id": label["label_id"],
                                     "added_on": row["created_on"]})

    # approvals
    for row, assignee in task_rows:
        if not row["requires_approval"]:
            continue
        requester = assignee or next(u for u in approvers)
        choices = [a for a in approvers if a is not requester]
        if not choices:
            row["requires_approval"] = 0
            continue
        approver = RNG.choice(choices)
        status = row["status"]
        created_day = d(row["created_on"])

        def add(astatus, requested, resolved, note=None, decision=None):
            t["approvals"].append({"approval_id": None, "task_id": row["task_id"],
                                   "requested_by_user_id": requester["user_id"], "approver_user_id": approver["user_id"],
                                   "status": astatus, "request_note": note, "requested_at": requested,
                                   "resolved_at": resolved, "decision_note": decision})

        if status == "done":
            done_day = d(row["completed_on"])
            req = max(created_day, done_day - timedelta(days=RNG.randint(1, 3)))
            if RNG.random() < 0.3 and (req - created_day).days > 2:
                first = between(created_day, req - timedelta(days=2))
                add("rejected", f"{iso(first)}T11:00:00", f"{iso(first + timedelta(days=1))}T09:40:00",
                    "Ready for your review.", "Please address the open comments first.")
            add("approved", f"{iso(req)}T14:10:00", f"{iso(done_day)}T10:05:00", "Ready for sign-off.",
                RNG.choice(("Approved.", "Looks good, approved.", None)))
        elif status == "in_review":
            if RNG.random() < 0.8:
                req = between(created_day, TODAY - timedelta(days=1))
                add("pending", f"{iso(req)}T15:30:00", None, RNG.choice(("Ready for sign-off.", None,
                                                                          "Second round after the feedback.")))
        elif status == "in_progress" and RNG.random() < 0.5:
            req = between(created_day, TODAY - timedelta(days=2))
            add("rejected", f"{iso(req)}T12:00:00", f"{iso(req + timedelta(days=1))}T16:20:00", None,
                "Numbers do not match the brief; please revise.")
        elif status == "cancelled" and RNG.random() < 0.6:
            req = between(created_day, end_of_work - timedelta(days=3))
            add("withdrawn", f"{iso(req)}T10:00:00", f"{iso(req + timedelta(days=2))}T10:00:00")

    for row, _ in task_rows:
        t["tasks"].append(row)


def finish(t):
    # mint ids for rows added out of order, sorted by time, and order every table by id
    t["tasks"].sort(key=lambda r: r["task_id"])
    for table, key, prefix, order in (("time_logs", "time_log_id", "TL", ("logged_at", "task_id")),
                                      ("comments", "comment_id", "CMT", ("created_at", "task_id")),
                                      ("approvals", "approval_id", "APR", ("requested_at", "task_id"))):
        t[table].sort(key=lambda r: tuple(r[k] for k in order))
        for number, row in enumerate(t[table], start=1):
            row[key] = f"{prefix}-{number:05d}"
        t[table] = [{key: row[key], **{k: v for k, v in row.items() if k != key}} for row in t[table]]
    t["project_members"].sort(key=lambda r: (r["project_id"], r["user_id"]))
    t["task_dependencies"].sort(key=lambda r: (r["task_id"], r["depends_on_task_id"]))
    t["task_labels"].sort(key=lambda r: (r["task_id"], r["label_id"]))
    return t


# --------------------------------------------------------------------------- free text
# Free text is written after every row exists, from its own generator, so that the rows, their ids
# and every other value stay exactly as the main generator made them.
TEXT_RNG = random.Random(7340512)

COMMENT_TEMPLATES = (
    "Pushed a first draft of {t}; feedback welcome before {day}.",
    "Blocked on {t} until the client sends the credentials.",
    "{who}, I can pair on {t} {day} afternoon if that helps.",
    "Moved the estimate for {t} up by {n} h: the scope grew after the review call.",
    "Looks good to me, {n} small notes inline.",
    "The client asked whether {t} can land before the demo on {day}.",
    "Waiting on legal to confirm the wording for {t}.",
    "Done on my side, handing {t} to {who} for review.",
    "This overlaps with what we closed last sprint; reusing that work for {t}.",
    "Raised {t} as a risk at stand-up; no change to the plan for now.",
    "Attached the updated numbers for {t} to the shared folder.",
    "Can we split {t} in two? The second half depends on the vendor.",
    "{who} has the context on {t}; looping them in.",
    "Half of {t} is done, the rest should be ready by {day}.",
    "I logged {n} h on {t} today; the tricky part was the edge cases.",
    "Re-ran the checks for {t}, all green now.",
    "Quick question on {t}: do we keep the old behaviour behind a flag?",
    "Spoke to {who} about {t}; we agreed to keep the scope as written.",
    "Found {n} issues while testing {t}, writing them up now.",
    "Sorry for the delay on {t}, I was out sick {day}.",
    "Pinged {who} for a review of {t}.",
    "{t}: the estimate still holds, nothing new to report.",
)
DESCRIPTION_TEMPLATES = (
    "{T}. Acceptance criteria are in the linked brief; check with {who} before changing scope.",
    "{T} for {p}. Carry-over from the last planning session; keep decisions in the comments.",
    "The client flagged this on the last status call: {t}.",
    "{T}. Needs a second pair of eyes before it goes to review.",
    "Timebox {t} to the estimate; raise it at stand-up if it runs over.",
    "{T}. Reference material is in the {p} folder on the shared drive.",
    "Part of the {p} plan: {t}. {who} owns the follow-up.",
    "{T}, as agreed in the kick-off. Document anything unexpected.",
    "{T}. Depends on input from {who}; ask early.",
    "Follow-up from the retro: {t}, with notes for the next team.",
)
SPRINT_GOALS = (
    "Ship the items promised at the last client demo.", "Clear the review queue and close open defects.",
    "Finish the groundwork for the next milestone.", "Reduce carry-over; only commit estimated work.",
    "Get the {p} release candidate ready for testing.", "Close the open questions from the {p} review.",
    "Hand the first usable version of {p} to the pilot users.", "Stabilise {p}: bugs before features.",
    "Unblock the tasks waiting on outside input.", "Prepare everything the {p} sign-off needs.",
)
REQUEST_NOTES = (
    "Ready for sign-off.", "Ready for your review: {t}.", "{T} is finished; please approve when you can.",
    "Second round after the feedback on {t}.", "Could you sign off {t} before {day}?",
    "All comments on {t} addressed; ready for approval.", "Final version of {t} attached to the task.",
)
APPROVE_NOTES = ("Approved.", "Looks good, approved.", "Approved; thanks for the quick turnaround.",
                 "Approved, nice work on {t}.", "Fine by me. Approved.", "Approved with one small follow-up noted.")
REJECT_NOTES = ("Please address the open comments on {t} first.", "Numbers do not match the brief; please revise.",
                "Not yet: {t} is missing the sign-off checklist.", "Please revise {t} after {who}'s feedback.",
                "The scope changed; update {t} and resubmit.")
LOG_DETAILS = ("Pairing session", "Review and fixes", "Research", "Client call", "Implementation", "Testing",
               "Documentation", "Planning", "Bug fixing", "Meeting with {who}", "Rework after review", "Set-up")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")


def vary_text(t):
    users = {u["user_id"]: u for u in t["users"]}
    projects = {p["project_id"]: p for p in t["projects"]}
    tasks = {row["task_id"]: row for row in t["tasks"]}
    members = {}
    for m in t["project_members"]:
        members.setdefault(m["project_id"], []).append(users[m["user_id"]]["full_name"].split(" ")[0])

    def fill(template, task=None, project_id=None):
        project_id = project_id or (task["project_id"] if task else None)
        title = task["title"] if task else ""
        names = members.get(project_id, ["the team"])
        return template.format(t=f"\u201c{title}\u201d", T=title, who=TEXT_RNG.choice(names),
                               p=projects[project_id]["name"] if project_id else "", day=TEXT_RNG.choice(DAYS),
                               n=TEXT_RNG.choice((2, 3, 4, 6)))

    for row in t["tasks"]:
        if row["description"] is not None:
            row["description"] = fill(TEXT_RNG.choice(DESCRIPTION_TEMPLATES), row)
    for row in t["comments"]:
        row["body"] = fill(TEXT_RNG.choice(COMMENT_TEMPLATES), tasks[row["task_id"]])
    for row in t["sprints"]:
        if row["goal"] is not None and row["goal"] != "Kick-off and discovery.":
            row["goal"] = fill(TEXT_RNG.choice(SPRINT_GOALS), project_id=row["project_id"])
    for row in t["approvals"]:
        task = tasks[row["task_id"]]
        if row["request_note"] is not None:
            row["request_note"] = fill(TEXT_RNG.choice(REQUEST_NOTES), task)
        if row["decision_note"] is not None:
            pool = APPROVE_NOTES if row["status"] == "approved" else REJECT_NOTES
            row["decision_note"] = fill(TEXT_RNG.choice(pool), task)
    for row in t["time_logs"]:
        if row["note"] is not None:
            row["note"] = fill(TEXT_RNG.choice(LOG_DETAILS), tasks[row["task_id"]])
    return t


# --------------------------------------------------------------------------- live history
# A live deployment has history: projects that ran sprints long before today, goals written by the
# teams for their own sprints, and task titles each company words its own way. These passes run
# after every row above exists, from their own generator, so that no existing id moves.
HISTORY_RNG = random.Random(5120626)

# (project name, title the template gave) -> how that company actually wrote it
RETITLED = {
    ("Satellite Tile Pipeline", "Document column-level lineage"): "Document lineage for the tile metadata tables",
    ("Lab Inventory System", "Document column-level lineage"): "Map which reports read the inventory tables",
    ("Year-End Close Automation", "Set up data quality checks"): "Add reconciliation checks to the ledger export",
    ("Satellite Tile Pipeline", "Set up data quality checks"): "Flag missing or corrupt tiles after each ingest",
    ("Volunteer Portal", "Review homepage copy with marketing"): "Review sign-up page copy with the comms team",
    ("Volunteer Portal", "Design product page mockups"): "Design volunteer opportunity page mockups",
    ("Satellite Tile Pipeline", "Design warehouse star schema"): "Design the tile catalogue schema",
    ("Member Newsletter Relaunch", "Set up email nurture sequence"): "Set up welcome emails for new members",
}


def retitle(t):
    names = {p["project_id"]: p["name"] for p in t["projects"]}
    for row in t["tasks"]:
        row["title"] = RETITLED.get((names[row["project_id"]], row["title"]), row["title"])
    return t


HISTORY_WINDOWS = (("2026-03-09", "2026-03-22", "Sprint 9"), ("2026-03-23", "2026-04-05", "Sprint 10"))


def add_sprint_history(t):
    """Closed sprints the busy projects ran before the ones the main generator made: the two before
    Sprint 11 for active projects, and every two-week sprint of a finished project that holds work."""
    sprints_of = {}
    for sprint in t["sprints"]:
        sprints_of.setdefault(sprint["project_id"], []).append(sprint)
    number = len(t["sprints"])
    rich = {ws["workspace_id"] for ws in t["workspaces"][: len(RICH)]}
    for project in t["projects"]:
        if project["workspace_id"] not in rich:
            continue
        pid = project["project_id"]
        done = [r for r in t["tasks"] if r["project_id"] == pid and r["status"] == "done" and r["sprint_id"] is None]
        windows = []
        if project["status"] == "active" and sprints_of.get(pid):
            windows = [(s, e, n) for s, e, n in HISTORY_WINDOWS if project["start_date"] <= s]
        elif project["status"] in ("completed", "archived") and done:
            first = d(project["start_date"])
            first += timedelta(days=(7 - first.weekday()) % 7)  # sprints start on a Monday
            last = max(d(r["completed_on"]) for r in done)
            lowest = min(d(r["completed_on"]) for r in done)
            k = 1
            while first <= last:
                end = first + timedelta(days=13)
                if end >= lowest:
                    windows.append((iso(first), iso(end), f"Sprint {k}"))
                first += timedelta(days=14)
                k += 1
        for start, end, name in windows:
            if not any(start <= r["completed_on"] <= end for r in done if r["sprint_id"] is None):
                continue  # only the sprints whose work is still in the data
            number += 1
            sprint = {"sprint_id": f"SPR-{number:05d}", "project_id": pid, "name": name, "goal": None,
                      "start_date": start, "end_date": end, "capacity_hours": 0, "status": "closed",
                      "closed_on": iso(d(end) + timedelta(days=1))}
            for row in done:
                if row["sprint_id"] is None and start <= row["completed_on"] <= end:
                    row["sprint_id"] = sprint["sprint_id"]
            committed = sum(r["estimate_hours"] or 0 for r in done if r["sprint_id"] == sprint["sprint_id"])
            sprint["capacity_hours"] = max(int(math.ceil(committed)) + HISTORY_RNG.choice((4, 8, 12, 16)), 24)
            t["sprints"].append(sprint)
    return t


GOALS_WITH_TWO = (
    "{A} and {b}.", "{A}; if there is room, {b}.", "Main goal: {a}. Stretch: {b}.",
    "{A} first, then {b}.", "Get {q} signed off and {b} under way.", "{A}, and {b} ready for review.",
    "Close out {q} and {q2}.", "{A} and {b}, no new scope.",
)
GOALS_WITH_ONE = (
    "{A} ahead of the {m} milestone.", "{A}. Everything else is secondary.", "Focus: {a}.",
    "{A}, so the {m} date holds.", "Finish {q}; keep interruptions out of the sprint.",
    "{A}; leave time for review comments.",
)
GOALS_WITHOUT_TASKS = (
    "Prep work for the {m} milestone.", "Bugs, review comments and the {p} retro actions.",
    "Scope and estimate the next batch of {p} work.", "Whatever is still open for the {m} milestone.",
    "Pick up the {p} backlog items the team agrees on at planning.",
)


def _lower_first(title):
    return title[0].lower() + title[1:] if len(title) > 1 and title[1].islower() else title


def write_sprint_goals(t):
    """Each team writes its own sprint goal, naming the work the sprint holds; about one in five
    sprints has none."""
    projects = {p["project_id"]: p for p in t["projects"]}
    milestones = {}
    for ms in t["milestones"]:
        milestones.setdefault(ms["project_id"], []).append(ms)
    for sprint in t["sprints"]:
        if sprint["goal"] == "Kick-off and discovery.":
            continue
        if HISTORY_RNG.random() < 0.2:
            sprint["goal"] = None
            continue
        titles = sorted(r["title"] for r in t["tasks"] if r["sprint_id"] == sprint["sprint_id"])
        HISTORY_RNG.shuffle(titles)
        ms = [m for m in milestones.get(sprint["project_id"], []) if m["due_date"] >= sprint["start_date"]]
        mname = f'\u201c{(ms or milestones.get(sprint["project_id"], [{"name": "next"}]))[0]["name"]}\u201d'
        if len(titles) >= 2:
            template = HISTORY_RNG.choice(GOALS_WITH_TWO)
        elif titles:
            template = HISTORY_RNG.choice(GOALS_WITH_ONE)
        else:
            template = HISTORY_RNG.choice(GOALS_WITHOUT_TASKS)
        a = titles[0] if titles else ""
        b = titles[1] if len(titles) > 1 else ""
        sprint["goal"] = template.format(A=a, a=_lower_first(a), b=_lower_first(b), q=f"\u201c{a}\u201d",
                                         q2=f"\u201c{b}\u201d", m=mname, p=projects[sprint["project_id"]]["name"])
    return t


# Milestones the teams re-planned instead of letting them lapse: the new date they agreed.
REPLANNED = {"MS-00009": "2026-05-22", "MS-00011": "2026-05-29", "MS-00017": "2026-05-20",
             "MS-00023": "2026-06-05", "MS-00029": "2026-05-26"}


def replan_milestones(t):
    for ms in t["milestones"]:
        if ms["milestone_id"] in REPLANNED:
            assert ms["status"] == "missed"
            later = [m["due_date"] for m in t["milestones"] if m["project_id"] == ms["project_id"]
                     and m["due_date"] > ms["due_date"]]
            assert all(REPLANNED[ms["milestone_id"]] < due for due in later)
            ms["due_date"], ms["status"] = REPLANNED[ms["milestone_id"]], "open"
    return t


def main():
    tables = write_sprint_goals(add_sprint_history(replan_milestones(vary_text(retitle(finish(build()))))))
    out = Path(__file__).with_name("seed.json")
    text = "{\n" + ",\n".join(
        f"  {json.dumps(name)}: [\n" + ",\n".join("    " + json.dumps(row, ensure_ascii=False) for row in rows) + "\n  ]"
        for name, rows in tables.items()
    ) + "\n}\n"
    out.write_text(text)
    print({name: len(rows) for name, rows in tables.items()}, sum(len(r) for r in tables.values()))


if __name__ == "__main__":
    main()
