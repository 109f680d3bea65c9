"""Tools of the project_management domain: workspaces, projects, members, tasks, sprints,
milestones, time logs, comments, labels and approvals.

Every tool is a plain function of ctx. The rules they enforce are the domain policy in
domain.json; helpers below (not tools) load rows and check shared rules.
"""

from datetime import date, timedelta

from scaleenv_mcp.toolkit import (
    ConflictError,
    InvalidArgumentError,
    NotFoundError,
    NotPermittedError,
    optional_date,
    require_choice,
    require_date,
    require_page,
    require_permission,
    require_row,
)

PLAN_PROJECT_LIMITS = (("free", 3), ("team", 10), ("business", 25), ("enterprise", 100))
FREE_PLAN_MEMBER_LIMIT = 5
ROLES = ("owner", "manager", "contributor", "viewer")
PRIORITIES = ("low", "medium", "high", "urgent")
TASK_STATUSES = ("backlog", "todo", "in_progress", "in_review", "done", "cancelled")
OPEN_TASK_STATUSES = ("backlog", "todo", "in_progress", "in_review")
CLOSED_TASK_STATUSES = ("done", "cancelled")
TASK_TRANSITIONS = (
    ("backlog", ("todo", "in_progress", "cancelled")),
    ("todo", ("backlog", "in_progress", "cancelled")),
    ("in_progress", ("todo", "in_review", "cancelled")),
    ("in_review", ("in_progress", "done", "cancelled")),
    ("done", ("in_progress",)),
    ("cancelled", ("backlog",)),
)
PROJECT_STATUSES = ("planning", "active", "on_hold", "completed", "archived")
PROJECT_TRANSITIONS = (
    ("planning", ("active", "archived")),
    ("active", ("on_hold", "completed")),
    ("on_hold", ("active", "archived")),
    ("completed", ("archived",)),
    ("archived", ()),
)
READ_ONLY_PROJECT_STATUSES = ("completed", "archived")
SPRINT_MIN_DAYS = 7
SPRINT_MAX_DAYS = 28
MAX_ENTRY_HOURS = 12
MAX_DAILY_HOURS = 12
TIMESHEET_LOCK_DAYS = 14
MAX_ESTIMATE_HOURS = 400
MAX_LABELS_PER_TASK = 5
MAX_PAGE = 100
MAX_COMMENT_LENGTH = 2000
MANAGING_ROLES = ("owner", "manager")
CONTRIBUTING_ROLES = ("owner", "manager", "contributor")

# Permission rules: who may make each call (the same words as each tool's `permission` in domain.json).
CREATE_PROJECT_RULE = "only a user of the workspace may create a project in it"
PROJECT_STATUS_RULE = "only an owner of the project may change its status"
ADD_MEMBER_RULE = "only an owner or manager of the project may add members"
CHANGE_ROLE_RULE = "only an owner of the project may change a member's role"
REMOVE_MEMBER_RULE = "only an owner or manager of the project may remove a member"
CREATE_TASK_RULE = "only an owner, manager or contributor of the project may create a task"
UPDATE_TASK_RULE = "only an owner, manager or contributor of the project may edit a task"
ASSIGN_TASK_RULE = ("only an owner or manager of the project may assign a task to anyone; "
                    "a contributor may assign a task only to themself")
TASK_STATUS_RULE = "only the task's assignee or an owner or manager of the project may change its status"
ADD_DEPENDENCY_RULE = "only an owner, manager or contributor of the project may add a dependency"
REMOVE_DEPENDENCY_RULE = "only an owner, manager or contributor of the project may remove a dependency"
CREATE_SPRINT_RULE = "only an owner or manager of the project may create a sprint"
START_SPRINT_RULE = "only an owner or manager of the project may start a sprint"
PLAN_SPRINT_RULE = "only an owner or manager of the project may add a task to a sprint"
CLOSE_SPRINT_RULE = "only an owner or manager of the project may close a sprint"
MILESTONE_RULE = "only an owner or manager of the project may mark a milestone reached"
LOG_TIME_RULE = "only an owner, manager or contributor of the project may log time on its tasks"
DELETE_TIME_LOG_RULE = "only the author of a time entry may delete it"
COMMENT_RULE = "only a member of the project may comment on its tasks"
LABEL_RULE = "only an owner, manager or contributor of the project may label its tasks"
REQUEST_APPROVAL_RULE = "only an owner, manager or contributor of the project may request an approval"
DECIDE_APPROVAL_RULE = "only the approver named on the request may decide it"
TIME_LOGS_RULE = "a user sees their own time entries; an owner or manager sees every entry of their project"


# ----------------------------------------------------------------------------- helpers

def load_project(ctx, project_id):
    return require_row(
        ctx,
        "SELECT * FROM projects WHERE project_id = ?",
        (project_id,),
        f"no project {project_id}; find projects with find_projects",
    )


def writable_project(ctx, project_id):
    project = load_project(ctx, project_id)
    if project["status"] in READ_ONLY_PROJECT_STATUSES:
        raise NotPermittedError(f"project {project_id} is {project['status']} and read-only")
    return project


def load_task(ctx, task_id):
    return require_row(
        ctx, "SELECT * FROM tasks WHERE task_id = ?", (task_id,), f"no task {task_id}; find tasks with find_tasks"
    )


def load_user(ctx, user_id):
    return require_row(
        ctx, "SELECT * FROM users WHERE user_id = ?", (user_id,), f"no user {user_id}; find users with find_users"
    )


def acting_user(ctx, acting_user_id):
    """The user the call acts for; not_found names the argument."""
    return require_row(ctx, "SELECT * FROM users WHERE user_id = ?", (acting_user_id,),
                       f"acting_user_id {acting_user_id}: no such user; identify the user with identify_user")


def require_role(ctx, project_id, user_id, roles, rule):
    """permission_denied naming ``rule`` unless ``user_id`` holds one of ``roles`` in the project."""
    require_permission(member_role(ctx, project_id, user_id) in roles, rule)


def member_role(ctx, project_id, user_id):
    row = ctx.db.fetch_one("SELECT role FROM project_members WHERE project_id = ? AND user_id = ?",
                           (project_id, user_id))
    return None if row is None else row["role"]


def task_summary(row):
    return {
        "task_id": row["task_id"], "project_id": row["project_id"], "title": row["title"], "status": row["status"],
        "priority": row["priority"], "assignee_user_id": row["assignee_user_id"], "sprint_id": row["sprint_id"],
        "milestone_id": row["milestone_id"], "estimate_hours": row["estimate_hours"],
        "logged_hours": row["logged_hours"], "due_date": row["due_date"],
    }


def sprint_committed(ctx, sprint_id):
    row = ctx.db.fetch_one(
        "SELECT coalesce(sum(estimate_hours), 0) AS hours FROM tasks WHERE sprint_id = ? AND status <> 'cancelled'",
        (sprint_id,))
    return float(row["hours"])


def allowed_next(table, status):
    for current, targets in table:
        if current == status:
            return targets
    return ()


# ----------------------------------------------------------------------------- read tools

def identify_user(ctx, email: str | None = None, full_name: str | None = None,
                  workspace_name: str | None = None) -> dict:
    if email is not None:
        rows = ctx.db.fetch_all(
            "SELECT u.user_id, u.full_name, u.email, u.job_title, u.status, u.workspace_id, w.name AS workspace_name "
            "FROM users u JOIN workspaces w ON w.workspace_id = u.workspace_id "
            "WHERE lower(u.email) = lower(trim(?)) ORDER BY u.user_id", (email,))
    elif full_name is not None:
        rows = ctx.db.fetch_all(
            "SELECT u.user_id, u.full_name, u.email, u.job_title, u.status, u.workspace_id, w.name AS workspace_name "
            "FROM users u JOIN workspaces w ON w.workspace_id = u.workspace_id "
            "WHERE lower(u.full_name) = lower(trim(?)) AND (? IS NULL OR lower(w.name) = lower(trim(?))) "
            "ORDER BY u.user_id", (full_name, workspace_name, workspace_name))
    else:
        raise InvalidArgumentError("give the user's email, or their full name (with their workspace's name when "
                                   "the name is shared)")
    if not rows:
        raise NotFoundError("no user matches; check the spelling or ask for the email address they sign in with")
    if len(rows) > 1:
        if len({r["workspace_id"] for r in rows}) > 1:
            ask = "ask for the name of their workspace (organisation) or their email"
        else:
            ask = f"they work at {rows[0]['workspace_name']}; ask for their email"
        raise InvalidArgumentError(f"{len(rows)} users are named {full_name}; {ask}")
    return rows[0]


def find_users(ctx, text: str | None = None, workspace_id: str | None = None, status: str | None = None,
               limit: int = 20, offset: int = 0) -> dict:
    require_page(limit, offset, MAX_PAGE)
    rows = ctx.db.fetch_all(
        "SELECT user_id, workspace_id, full_name, email, job_title, status FROM users "
        "WHERE (? IS NULL OR full_name LIKE '%' || ? || '%' OR email LIKE '%' || ? || '%') "
        "AND (? IS NULL OR workspace_id = ?) AND (? IS NULL OR status = ?) "
        "ORDER BY user_id LIMIT ? OFFSET ?",
        (text, text, text, workspace_id, workspace_id, status, status, limit, offset))
    total = ctx.db.fetch_one(
        "SELECT count(*) AS n FROM users "
        "WHERE (? IS NULL OR full_name LIKE '%' || ? || '%' OR email LIKE '%' || ? || '%') "
        "AND (? IS NULL OR workspace_id = ?) AND (? IS NULL OR status = ?)",
        (text, text, text, workspace_id, workspace_id, status, status))["n"]
    return {"items": rows, "total": total}


def get_user(ctx, user_id: str) -> dict:
    user = load_user(ctx, user_id)
    memberships = ctx.db.fetch_all(
        "SELECT m.project_id, p.name AS project_name, p.status AS project_status, m.role FROM project_members m "
        "JOIN projects p ON p.project_id = m.project_id WHERE m.user_id = ? ORDER BY m.project_id", (user_id,))
    open_tasks = ctx.db.fetch_one(
        "SELECT count(*) AS n FROM tasks WHERE assignee_user_id = ? "
        "AND status IN ('backlog', 'todo', 'in_progress', 'in_review')", (user_id,))["n"]
    return {**user, "memberships": memberships, "open_task_count": open_tasks}


def list_workspaces(ctx, text: str | None = None, plan: str | None = None, status: str | None = None) -> dict:
    rows = ctx.db.fetch_all(
        "SELECT w.workspace_id, w.name, w.plan, w.status, w.billing_email, "
        "(SELECT count(*) FROM projects p WHERE p.workspace_id = w.workspace_id AND p.status <> 'archived') "
        "AS open_project_count FROM workspaces w "
        "WHERE (? IS NULL OR w.name LIKE '%' || ? || '%') AND (? IS NULL OR w.plan = ?) "
        "AND (? IS NULL OR w.status = ?) ORDER BY w.workspace_id",
        (text, text, plan, plan, status, status))
    return {"items": rows}


def find_projects(ctx, workspace_id: str | None = None, status: str | None = None, text: str | None = None,
                  lead_user_id: str | None = None, member_user_id: str | None = None, limit: int = 20,
                  offset: int = 0) -> dict:
    require_page(limit, offset, MAX_PAGE)
    params = (workspace_id, workspace_id, status, status, text, text, text, lead_user_id, lead_user_id,
              member_user_id, member_user_id)
    rows = ctx.db.fetch_all(
        "SELECT p.project_id, p.workspace_id, p.name, p.status, p.lead_user_id, p.start_date, p.target_date "
        "FROM projects p WHERE (? IS NULL OR p.workspace_id = ?) AND (? IS NULL OR p.status = ?) "
        "AND (? IS NULL OR p.name LIKE '%' || ? || '%' OR p.description LIKE '%' || ? || '%') "
        "AND (? IS NULL OR p.lead_user_id = ?) "
        "AND (? IS NULL OR EXISTS (SELECT 1 FROM project_members m WHERE m.project_id = p.project_id "
        "AND m.user_id = ?)) ORDER BY p.project_id LIMIT ? OFFSET ?",
        params + (limit, offset))
    total = ctx.db.fetch_one(
        "SELECT count(*) AS n FROM projects p WHERE (? IS NULL OR p.workspace_id = ?) "
        "AND (? IS NULL OR p.status = ?) "
        "AND (? IS NULL OR p.name LIKE '%' || ? || '%' OR p.description LIKE '%' || ? || '%') "
        "AND (? IS NULL OR p.lead_user_id = ?) "
        "AND (? IS NULL OR EXISTS (SELECT 1 FROM project_members m WHERE m.project_id = p.project_id "
        "AND m.user_id = ?))", params)["n"]
    return {"items": rows, "total": total}


def get_project(ctx, project_id: str) -> dict:
    project = load_project(ctx, project_id)
    workspace = ctx.db.fetch_one("SELECT name, plan FROM workspaces WHERE workspace_id = ?",
                                 (project["workspace_id"],))
    counts = {status: 0 for status in TASK_STATUSES}
    for row in ctx.db.fetch_all("SELECT status, count(*) AS n FROM tasks WHERE project_id = ? GROUP BY status",
                                (project_id,)):
        counts[row["status"]] = row["n"]
    hours = ctx.db.fetch_one(
        "SELECT coalesce(sum(estimate_hours), 0) AS estimated, coalesce(sum(logged_hours), 0) AS logged "
        "FROM tasks WHERE project_id = ? AND status <> 'cancelled'", (project_id,))
    sprint = ctx.db.fetch_one("SELECT sprint_id FROM sprints WHERE project_id = ? AND status = 'active'",
                              (project_id,))
    return {**project, "workspace_name": workspace["name"], "workspace_plan": workspace["plan"],
            "task_counts": counts, "estimated_hours": float(hours["estimated"]),
            "logged_hours": float(hours["logged"]),
            "active_sprint_id": None if sprint is None else sprint["sprint_id"]}


def list_project_members(ctx, project_id: str, role: str | None = None) -> dict:
    load_project(ctx, project_id)
    rows = ctx.db.fetch_all(
        "SELECT m.project_id, m.user_id, u.full_name, u.email, u.status AS user_status, m.role, m.joined_on "
        "FROM project_members m JOIN users u ON u.user_id = m.user_id "
        "WHERE m.project_id = ? AND (? IS NULL OR m.role = ?) "
        "ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'manager' THEN 1 WHEN 'contributor' THEN 2 ELSE 3 END, "
        "m.user_id", (project_id, role, role))
    return {"items": rows}


def find_tasks(ctx, project_id: str | None = None, workspace_id: str | None = None, status: str | None = None,
               priority: str | None = None, assignee_user_id: str | None = None, sprint_id: str | None = None,
               milestone_id: str | None = None, label_id: str | None = None, text: str | None = None,
               due_from: str | None = None, due_to: str | None = None, unassigned_only: bool = False,
               limit: int = 20, offset: int = 0) -> dict:
    require_page(limit, offset, MAX_PAGE)
    optional_date(due_from, "due_from")
    optional_date(due_to, "due_to")
    params = (project_id, project_id, workspace_id, workspace_id, status, status, priority, priority,
              assignee_user_id, assignee_user_id, 1 if unassigned_only else 0, sprint_id, sprint_id,
              milestone_id, milestone_id, label_id, label_id, text, text, text, due_from, due_from, due_to, due_to)
    rows = ctx.db.fetch_all(
        "SELECT t.* FROM tasks t JOIN projects p ON p.project_id = t.project_id "
        "WHERE (? IS NULL OR t.project_id = ?) AND (? IS NULL OR p.workspace_id = ?) "
        "AND (? IS NULL OR t.status = ?) AND (? IS NULL OR t.priority = ?) "
        "AND (? IS NULL OR t.assignee_user_id = ?) AND (? = 0 OR t.assignee_user_id IS NULL) "
        "AND (? IS NULL OR t.sprint_id = ?) AND (? IS NULL OR t.milestone_id = ?) "
        "AND (? IS NULL OR EXISTS (SELECT 1 FROM task_labels l WHERE l.task_id = t.task_id AND l.label_id = ?)) "
        "AND (? IS NULL OR t.title LIKE '%' || ? || '%' OR t.description LIKE '%' || ? || '%') "
        "AND (? IS NULL OR t.due_date >= ?) AND (? IS NULL OR t.due_date <= ?) "
        "ORDER BY t.task_id LIMIT ? OFFSET ?", params + (limit, offset))
    total = ctx.db.fetch_one(
        "SELECT count(*) AS n FROM tasks t JOIN projects p ON p.project_id = t.project_id "
        "WHERE (? IS NULL OR t.project_id = ?) AND (? IS NULL OR p.workspace_id = ?) "
        "AND (? IS NULL OR t.status = ?) AND (? IS NULL OR t.priority = ?) "
        "AND (? IS NULL OR t.assignee_user_id = ?) AND (? = 0 OR t.assignee_user_id IS NULL) "
        "AND (? IS NULL OR t.sprint_id = ?) AND (? IS NULL OR t.milestone_id = ?) "
        "AND (? IS NULL OR EXISTS (SELECT 1 FROM task_labels l WHERE l.task_id = t.task_id AND l.label_id = ?)) "
        "AND (? IS NULL OR t.title LIKE '%' || ? || '%' OR t.description LIKE '%' || ? || '%') "
        "AND (? IS NULL OR t.due_date >= ?) AND (? IS NULL OR t.due_date <= ?)", params)["n"]
    return {"items": [task_summary(r) for r in rows], "total": total}


def get_task(ctx, task_id: str) -> dict:
    task = load_task(ctx, task_id)
    labels = ctx.db.fetch_all(
        "SELECT l.label_id, l.name FROM task_labels tl JOIN labels l ON l.label_id = tl.label_id "
        "WHERE tl.task_id = ? ORDER BY l.name", (task_id,))
    dependencies = ctx.db.fetch_all(
        "SELECT d.depends_on_task_id, t.title, t.status FROM task_dependencies d "
        "JOIN tasks t ON t.task_id = d.depends_on_task_id WHERE d.task_id = ? ORDER BY d.depends_on_task_id",
        (task_id,))
    blocking = ctx.db.fetch_all(
        "SELECT d.task_id, t.title, t.status FROM task_dependencies d "
        "JOIN tasks t ON t.task_id = d.task_id WHERE d.depends_on_task_id = ? ORDER BY d.task_id", (task_id,))
    approvals = ctx.db.fetch_all(
        "SELECT approval_id, status, requested_by_user_id, approver_user_id, requested_at, resolved_at "
        "FROM approvals WHERE task_id = ? ORDER BY requested_at, approval_id", (task_id,))
    return {**task, "requires_approval": bool(task["requires_approval"]), "labels": labels,
            "dependencies": dependencies, "blocking": blocking, "approvals": approvals}


def list_sprints(ctx, project_id: str, status: str | None = None) -> dict:
    load_project(ctx, project_id)
    rows = ctx.db.fetch_all(
        "SELECT s.sprint_id, s.project_id, s.name, s.status, s.start_date, s.end_date, s.capacity_hours, "
        "(SELECT coalesce(sum(t.estimate_hours), 0) FROM tasks t WHERE t.sprint_id = s.sprint_id "
        "AND t.status <> 'cancelled') AS committed_hours, "
        "(SELECT count(*) FROM tasks t WHERE t.sprint_id = s.sprint_id) AS task_count "
        "FROM sprints s WHERE s.project_id = ? AND (? IS NULL OR s.status = ?) ORDER BY s.start_date, s.sprint_id",
        (project_id, status, status))
    for row in rows:
        row["committed_hours"] = float(row["committed_hours"])
    return {"items": rows}


def get_sprint(ctx, sprint_id: str) -> dict:
    sprint = require_row(
        ctx,
        "SELECT * FROM sprints WHERE sprint_id = ?",
        (sprint_id,),
        f"no sprint {sprint_id}; list sprints with list_sprints",
    )
    tasks = ctx.db.fetch_all(
        "SELECT task_id, title, status, assignee_user_id, estimate_hours FROM tasks WHERE sprint_id = ? "
        "ORDER BY task_id", (sprint_id,))
    committed = sprint_committed(ctx, sprint_id)
    return {**sprint, "committed_hours": committed, "remaining_capacity_hours": sprint["capacity_hours"] - committed,
            "tasks": tasks}


def list_milestones(ctx, project_id: str, status: str | None = None) -> dict:
    load_project(ctx, project_id)
    rows = ctx.db.fetch_all(
        "SELECT m.milestone_id, m.project_id, m.name, m.due_date, m.status, m.reached_on, "
        "(SELECT count(*) FROM tasks t WHERE t.milestone_id = m.milestone_id) AS task_count, "
        "(SELECT count(*) FROM tasks t WHERE t.milestone_id = m.milestone_id "
        "AND t.status IN ('backlog', 'todo', 'in_progress', 'in_review')) AS open_task_count "
        "FROM milestones m WHERE m.project_id = ? AND (? IS NULL OR m.status = ?) ORDER BY m.due_date, m.milestone_id",
        (project_id, status, status))
    return {"items": rows}


def list_time_logs(ctx, acting_user_id: str, task_id: str | None = None, user_id: str | None = None,
                   project_id: str | None = None, date_from: str | None = None, date_to: str | None = None,
                   billable: bool | None = None, limit: int = 50, offset: int = 0) -> dict:
    acting_user(ctx, acting_user_id)
    if task_id is None and user_id is None and project_id is None:
        raise InvalidArgumentError("give at least one of task_id, user_id or project_id")
    require_page(limit, offset, MAX_PAGE)
    optional_date(date_from, "date_from")
    optional_date(date_to, "date_to")
    scope = project_id if task_id is None else load_task(ctx, task_id)["project_id"]
    require_permission(user_id == acting_user_id
                       or (scope is not None and member_role(ctx, scope, acting_user_id) in MANAGING_ROLES),
                       TIME_LOGS_RULE)
    flag = None if billable is None else (1 if billable else 0)
    params = (task_id, task_id, user_id, user_id, project_id, project_id, date_from, date_from, date_to, date_to,
              flag, flag)
    rows = ctx.db.fetch_all(
        "SELECT l.time_log_id, l.task_id, t.project_id, l.user_id, l.work_date, l.hours, l.billable, l.note "
        "FROM time_logs l JOIN tasks t ON t.task_id = l.task_id "
        "WHERE (? IS NULL OR l.task_id = ?) AND (? IS NULL OR l.user_id = ?) AND (? IS NULL OR t.project_id = ?) "
        "AND (? IS NULL OR l.work_date >= ?) AND (? IS NULL OR l.work_date <= ?) "
        "AND (? IS NULL OR l.billable = ?) ORDER BY l.work_date, l.time_log_id LIMIT ? OFFSET ?",
        params + (limit, offset))
    summary = ctx.db.fetch_one(
        "SELECT count(*) AS n, coalesce(sum(l.hours), 0) AS hours FROM time_logs l "
        "JOIN tasks t ON t.task_id = l.task_id "
        "WHERE (? IS NULL OR l.task_id = ?) AND (? IS NULL OR l.user_id = ?) AND (? IS NULL OR t.project_id = ?) "
        "AND (? IS NULL OR l.work_date >= ?) AND (? IS NULL OR l.work_date <= ?) "
        "AND (? IS NULL OR l.billable = ?)", params)
    for row in rows:
        row["billable"] = bool(row["billable"])
    return {"items": rows, "total": summary["n"], "total_hours": float(summary["hours"])}


def list_comments(ctx, task_id: str) -> dict:
    load_task(ctx, task_id)
    rows = ctx.db.fetch_all(
        "SELECT c.comment_id, c.task_id, c.author_user_id, u.full_name AS author_name, c.body, c.created_at "
        "FROM comments c JOIN users u ON u.user_id = c.author_user_id WHERE c.task_id = ? "
        "ORDER BY c.created_at, c.comment_id", (task_id,))
    return {"items": rows}


def list_labels(ctx, workspace_id: str, text: str | None = None) -> dict:
    require_row(
        ctx,
        "SELECT workspace_id FROM workspaces WHERE workspace_id = ?",
        (workspace_id,),
        f"no workspace {workspace_id}; list workspaces with list_workspaces",
    )
    rows = ctx.db.fetch_all(
        "SELECT l.label_id, l.workspace_id, l.name, l.color, "
        "(SELECT count(*) FROM task_labels tl WHERE tl.label_id = l.label_id) AS task_count "
        "FROM labels l WHERE l.workspace_id = ? AND (? IS NULL OR l.name LIKE '%' || ? || '%') ORDER BY l.name",
        (workspace_id, text, text))
    return {"items": rows}


def list_approvals(ctx, status: str | None = None, approver_user_id: str | None = None,
                   requested_by_user_id: str | None = None, project_id: str | None = None,
                   task_id: str | None = None, limit: int = 20, offset: int = 0) -> dict:
    require_page(limit, offset, MAX_PAGE)
    rows = ctx.db.fetch_all(
        "SELECT a.approval_id, a.task_id, t.title AS task_title, t.project_id, a.requested_by_user_id, "
        "a.approver_user_id, a.status, a.request_note, a.requested_at, a.resolved_at, a.decision_note "
        "FROM approvals a JOIN tasks t ON t.task_id = a.task_id "
        "WHERE (? IS NULL OR a.status = ?) AND (? IS NULL OR a.approver_user_id = ?) "
        "AND (? IS NULL OR a.requested_by_user_id = ?) AND (? IS NULL OR t.project_id = ?) "
        "AND (? IS NULL OR a.task_id = ?) ORDER BY a.requested_at, a.approval_id LIMIT ? OFFSET ?",
        (status, status, approver_user_id, approver_user_id, requested_by_user_id, requested_by_user_id,
         project_id, project_id, task_id, task_id, limit, offset))
    return {"items": rows}


# ----------------------------------------------------------------------------- projects and members

def create_project(ctx, acting_user_id: str, workspace_id: str, name: str, lead_user_id: str, start_date: str,
                   target_date: str, budget_hours: int, description: str | None = None) -> dict:
    actor = acting_user(ctx, acting_user_id)
    workspace = require_row(
        ctx,
        "SELECT * FROM workspaces WHERE workspace_id = ?",
        (workspace_id,),
        f"no workspace {workspace_id}; list workspaces with list_workspaces",
    )
    require_permission(actor["workspace_id"] == workspace_id, CREATE_PROJECT_RULE)
    if workspace["status"] != "active":
        raise NotPermittedError(f"workspace {workspace_id} is suspended: no new projects")
    name = name.strip()
    if not name:
        raise InvalidArgumentError("name must not be empty")
    start = require_date(start_date, "start_date")
    target = require_date(target_date, "target_date")
    if target < start:
        raise InvalidArgumentError(f"target_date {target_date} is before start_date {start_date}")
    if budget_hours < 0:
        raise InvalidArgumentError("budget_hours must be 0 or more")
    lead = load_user(ctx, lead_user_id)
    if lead["workspace_id"] != workspace_id:
        raise InvalidArgumentError(f"user {lead_user_id} belongs to workspace {lead['workspace_id']}, "
                                   f"not {workspace_id}")
    if lead["status"] != "active":
        raise NotPermittedError(f"user {lead_user_id} is deactivated and cannot lead a project")
    clash = ctx.db.fetch_one("SELECT project_id FROM projects WHERE workspace_id = ? AND lower(name) = lower(?)",
                             (workspace_id, name))
    if clash is not None:
        raise ConflictError(f"workspace {workspace_id} already has a project named {name!r} ({clash['project_id']})")
    open_projects = ctx.db.fetch_one(
        "SELECT count(*) AS n FROM projects WHERE workspace_id = ? AND status <> 'archived'", (workspace_id,))["n"]
    limit = dict(PLAN_PROJECT_LIMITS)[workspace["plan"]]
    if open_projects >= limit:
        raise ConflictError(f"the {workspace['plan']} plan allows {limit} non-archived projects and workspace "
                            f"{workspace_id} has {open_projects}; archive one first")
    project_id = ctx.new_id("PRJ")
    ctx.db.execute(
        "INSERT INTO projects (project_id, workspace_id, name, status, lead_user_id, start_date, target_date, "
        "budget_hours, description, created_on) VALUES (?, ?, ?, 'planning', ?, ?, ?, ?, ?, ?)",
        (project_id, workspace_id, name, lead_user_id, start_date, target_date, budget_hours, description, ctx.today))
    ctx.db.execute(
        "INSERT INTO project_members (project_id, user_id, role, joined_on) VALUES (?, ?, 'owner', ?)",
        (project_id, lead_user_id, ctx.today))
    return {"project_id": project_id, "workspace_id": workspace_id, "name": name, "status": "planning",
            "lead_user_id": lead_user_id, "start_date": start_date, "target_date": target_date,
            "budget_hours": budget_hours}


def update_project_status(ctx, acting_user_id: str, project_id: str, status: str) -> dict:
    acting_user(ctx, acting_user_id)
    project = load_project(ctx, project_id)
    require_role(ctx, project_id, acting_user_id, ("owner",), PROJECT_STATUS_RULE)
    require_choice(status, PROJECT_STATUSES, "status")
    current = project["status"]
    if status not in allowed_next(PROJECT_TRANSITIONS, current):
        raise ConflictError(f"project {project_id} cannot go from {current} to {status}")
    if status == "completed":
        open_tasks = ctx.db.fetch_one(
            "SELECT count(*) AS n FROM tasks WHERE project_id = ? "
            "AND status IN ('backlog', 'todo', 'in_progress', 'in_review')", (project_id,))["n"]
        if open_tasks > 0:
            raise ConflictError(f"project {project_id} still has {open_tasks} open tasks; finish or cancel them")
        running = ctx.db.fetch_one(
            "SELECT sprint_id FROM sprints WHERE project_id = ? AND status = 'active'", (project_id,))
        if running is not None:
            raise ConflictError(f"sprint {running['sprint_id']} is still active; close it first")
    ctx.db.execute("UPDATE projects SET status = ? WHERE project_id = ?", (status, project_id))
    return {"project_id": project_id, "previous_status": current, "status": status}


def add_project_member(ctx, acting_user_id: str, project_id: str, user_id: str, role: str) -> dict:
    acting_user(ctx, acting_user_id)
    load_project(ctx, project_id)
    require_role(ctx, project_id, acting_user_id, MANAGING_ROLES, ADD_MEMBER_RULE)
    project = writable_project(ctx, project_id)
    user = load_user(ctx, user_id)
    require_choice(role, ROLES, "role")
    if user["workspace_id"] != project["workspace_id"]:
        raise InvalidArgumentError(f"user {user_id} belongs to workspace {user['workspace_id']}, not the "
                                   f"project's workspace {project['workspace_id']}")
    if user["status"] != "active":
        raise NotPermittedError(f"user {user_id} is deactivated")
    if member_role(ctx, project_id, user_id) is not None:
        raise ConflictError(f"user {user_id} is already a member of {project_id}; use change_member_role")
    plan = ctx.db.fetch_one("SELECT plan FROM workspaces WHERE workspace_id = ?", (project["workspace_id"],))["plan"]
    if plan == "free":
        members = ctx.db.fetch_one("SELECT count(*) AS n FROM project_members WHERE project_id = ?",
                                   (project_id,))["n"]
        if members >= FREE_PLAN_MEMBER_LIMIT:
            raise ConflictError(f"free-plan projects have at most {FREE_PLAN_MEMBER_LIMIT} members")
    ctx.db.execute("INSERT INTO project_members (project_id, user_id, role, joined_on) VALUES (?, ?, ?, ?)",
                   (project_id, user_id, role, ctx.today))
    return {"project_id": project_id, "user_id": user_id, "role": role, "joined_on": ctx.today}


def change_member_role(ctx, acting_user_id: str, project_id: str, user_id: str, role: str) -> dict:
    acting_user(ctx, acting_user_id)
    load_project(ctx, project_id)
    require_role(ctx, project_id, acting_user_id, ("owner",), CHANGE_ROLE_RULE)
    writable_project(ctx, project_id)
    require_choice(role, ROLES, "role")
    current = member_role(ctx, project_id, user_id)
    if current is None:
        raise NotFoundError(f"user {user_id} is not a member of {project_id}")
    if current == role:
        raise ConflictError(f"user {user_id} already has role {role}")
    if current == "owner":
        owners = ctx.db.fetch_one("SELECT count(*) AS n FROM project_members WHERE project_id = ? AND role = 'owner'",
                                  (project_id,))["n"]
        if owners <= 1:
            raise ConflictError(f"user {user_id} is the last owner of {project_id}; make someone else owner first")
    if role == "viewer":
        open_tasks = ctx.db.fetch_one(
            "SELECT count(*) AS n FROM tasks WHERE project_id = ? AND assignee_user_id = ? "
            "AND status IN ('backlog', 'todo', 'in_progress', 'in_review')", (project_id, user_id))["n"]
        if open_tasks > 0:
            raise ConflictError(f"user {user_id} has {open_tasks} open tasks in {project_id}; reassign them first")
    ctx.db.execute("UPDATE project_members SET role = ? WHERE project_id = ? AND user_id = ?",
                   (role, project_id, user_id))
    return {"project_id": project_id, "user_id": user_id, "previous_role": current, "role": role}


def remove_project_member(ctx, acting_user_id: str, project_id: str, user_id: str) -> dict:
    acting_user(ctx, acting_user_id)
    load_project(ctx, project_id)
    require_role(ctx, project_id, acting_user_id, MANAGING_ROLES, REMOVE_MEMBER_RULE)
    project = writable_project(ctx, project_id)
    current = member_role(ctx, project_id, user_id)
    if current is None:
        raise NotFoundError(f"user {user_id} is not a member of {project_id}")
    if project["lead_user_id"] == user_id:
        raise ConflictError(f"user {user_id} leads {project_id} and cannot be removed")
    if current == "owner":
        owners = ctx.db.fetch_one("SELECT count(*) AS n FROM project_members WHERE project_id = ? AND role = 'owner'",
                                  (project_id,))["n"]
        if owners <= 1:
            raise ConflictError(f"user {user_id} is the last owner of {project_id}")
    unassigned = [r["task_id"] for r in ctx.db.fetch_all(
        "SELECT task_id FROM tasks WHERE project_id = ? AND assignee_user_id = ? "
        "AND status IN ('backlog', 'todo', 'in_progress', 'in_review') ORDER BY task_id", (project_id, user_id))]
    ctx.db.execute(
        "UPDATE tasks SET assignee_user_id = NULL WHERE project_id = ? AND assignee_user_id = ? "
        "AND status IN ('backlog', 'todo', 'in_progress', 'in_review')", (project_id, user_id))
    ctx.db.execute("DELETE FROM project_members WHERE project_id = ? AND user_id = ?", (project_id, user_id))
    return {"project_id": project_id, "user_id": user_id, "removed_role": current, "unassigned_task_ids": unassigned}


# ----------------------------------------------------------------------------- tasks

def create_task(ctx, acting_user_id: str, project_id: str, title: str, priority: str = "medium",
                description: str | None = None, estimate_hours: float | None = None,
                assignee_user_id: str | None = None, due_date: str | None = None, milestone_id: str | None = None,
                requires_approval: bool = False) -> dict:
    acting_user(ctx, acting_user_id)
    load_project(ctx, project_id)
    require_role(ctx, project_id, acting_user_id, CONTRIBUTING_ROLES, CREATE_TASK_RULE)
    reporter_user_id = acting_user_id
    writable_project(ctx, project_id)
    title = title.strip()
    if not title:
        raise InvalidArgumentError("title must not be empty")
    require_choice(priority, PRIORITIES, "priority")
    if estimate_hours is not None and (estimate_hours < 0 or estimate_hours > MAX_ESTIMATE_HOURS):
        raise InvalidArgumentError(f"estimate_hours must be between 0 and {MAX_ESTIMATE_HOURS}")
    if due_date is not None and require_date(due_date, "due_date") < date.fromisoformat(ctx.today):
        raise InvalidArgumentError(f"due_date {due_date} is in the past (today is {ctx.today})")
    if assignee_user_id is not None:
        assignee = load_user(ctx, assignee_user_id)
        role = member_role(ctx, project_id, assignee_user_id)
        if role is None or role == "viewer":
            raise NotPermittedError(f"user {assignee_user_id} is not a contributing member of {project_id}")
        if assignee["status"] != "active":
            raise NotPermittedError(f"user {assignee_user_id} is deactivated")
    if milestone_id is not None:
        milestone = require_row(
            ctx, "SELECT * FROM milestones WHERE milestone_id = ?", (milestone_id,), f"no milestone {milestone_id}"
        )
        if milestone["project_id"] != project_id:
            raise InvalidArgumentError(f"milestone {milestone_id} belongs to project {milestone['project_id']}")
        if milestone["status"] == "reached":
            raise ConflictError(f"milestone {milestone_id} is already reached")
    task_id = ctx.new_id("TSK")
    ctx.db.execute(
        "INSERT INTO tasks (task_id, project_id, title, description, status, priority, assignee_user_id, "
        "reporter_user_id, sprint_id, milestone_id, estimate_hours, logged_hours, due_date, requires_approval, "
        "created_on, completed_on) VALUES (?, ?, ?, ?, 'backlog', ?, ?, ?, NULL, ?, ?, 0.0, ?, ?, ?, NULL)",
        (task_id, project_id, title, description, priority, assignee_user_id, reporter_user_id, milestone_id,
         estimate_hours, due_date, 1 if requires_approval else 0, ctx.today))
    return {"task_id": task_id, "project_id": project_id, "title": title, "status": "backlog", "priority": priority,
            "assignee_user_id": assignee_user_id, "milestone_id": milestone_id, "estimate_hours": estimate_hours,
            "due_date": due_date, "requires_approval": requires_approval}


def update_task(ctx, acting_user_id: str, task_id: str, title: str | None = None, description: str | None = None,
                priority: str | None = None, estimate_hours: float | None = None, due_date: str | None = None) -> dict:
    acting_user(ctx, acting_user_id)
    task = load_task(ctx, task_id)
    require_role(ctx, task["project_id"], acting_user_id, CONTRIBUTING_ROLES, UPDATE_TASK_RULE)
    if title is None and description is None and priority is None and estimate_hours is None and due_date is None:
        raise InvalidArgumentError("give at least one field to change")
    writable_project(ctx, task["project_id"])
    if task["status"] in CLOSED_TASK_STATUSES:
        raise ConflictError(f"task {task_id} is {task['status']}; reopen it before editing")
    if title is not None and not title.strip():
        raise InvalidArgumentError("title must not be empty")
    if priority is not None:
        require_choice(priority, PRIORITIES, "priority")
    if due_date is not None and require_date(due_date, "due_date") < date.fromisoformat(ctx.today):
        raise InvalidArgumentError(f"due_date {due_date} is in the past (today is {ctx.today})")
    if estimate_hours is not None:
        if estimate_hours < 0 or estimate_hours > MAX_ESTIMATE_HOURS:
            raise InvalidArgumentError(f"estimate_hours must be between 0 and {MAX_ESTIMATE_HOURS}")
        if task["sprint_id"] is not None:
            sprint = ctx.db.fetch_one("SELECT * FROM sprints WHERE sprint_id = ?", (task["sprint_id"],))
            committed = sprint_committed(ctx, sprint["sprint_id"]) - (task["estimate_hours"] or 0) + estimate_hours
            if sprint["status"] != "closed" and committed > sprint["capacity_hours"]:
                raise ConflictError(f"sprint {sprint['sprint_id']} would hold {committed} h of "
                                    f"{sprint['capacity_hours']} h capacity")
    changed = {}
    if title is not None:
        changed["title"] = title.strip()
    if description is not None:
        changed["description"] = description
    if priority is not None:
        changed["priority"] = priority
    if estimate_hours is not None:
        changed["estimate_hours"] = estimate_hours
    if due_date is not None:
        changed["due_date"] = due_date
    ctx.db.execute(
        "UPDATE tasks SET title = coalesce(?, title), description = coalesce(?, description), "
        "priority = coalesce(?, priority), estimate_hours = coalesce(?, estimate_hours), "
        "due_date = coalesce(?, due_date) WHERE task_id = ?",
        (changed.get("title"), description, priority, estimate_hours, due_date, task_id))
    return {"task_id": task_id, "updated_fields": sorted(changed), "task": task_summary(load_task(ctx, task_id))}


def assign_task(ctx, acting_user_id: str, task_id: str, assignee_user_id: str) -> dict:
    acting_user(ctx, acting_user_id)
    task = load_task(ctx, task_id)
    user = load_user(ctx, assignee_user_id)
    acting_role = member_role(ctx, task["project_id"], acting_user_id)
    require_permission(acting_role in MANAGING_ROLES
                       or (acting_role == "contributor" and assignee_user_id == acting_user_id), ASSIGN_TASK_RULE)
    writable_project(ctx, task["project_id"])
    if task["status"] in CLOSED_TASK_STATUSES:
        raise ConflictError(f"task {task_id} is {task['status']}")
    if task["assignee_user_id"] == assignee_user_id:
        raise ConflictError(f"task {task_id} is already assigned to {assignee_user_id}")
    role = member_role(ctx, task["project_id"], assignee_user_id)
    if role is None or role == "viewer":
        raise NotPermittedError(f"user {assignee_user_id} is not a contributing member of {task['project_id']}")
    if user["status"] != "active":
        raise NotPermittedError(f"user {assignee_user_id} is deactivated")
    ctx.db.execute("UPDATE tasks SET assignee_user_id = ? WHERE task_id = ?", (assignee_user_id, task_id))
    return {"task_id": task_id, "assignee_user_id": assignee_user_id,
            "previous_assignee_user_id": task["assignee_user_id"]}


def change_task_status(ctx, acting_user_id: str, task_id: str, status: str) -> dict:
    acting_user(ctx, acting_user_id)
    task = load_task(ctx, task_id)
    require_permission(task["assignee_user_id"] == acting_user_id
                       or member_role(ctx, task["project_id"], acting_user_id) in MANAGING_ROLES, TASK_STATUS_RULE)
    require_choice(status, TASK_STATUSES, "status")
    writable_project(ctx, task["project_id"])
    current = task["status"]
    if status not in allowed_next(TASK_TRANSITIONS, current):
        raise ConflictError(f"task {task_id} cannot go from {current} to {status}")
    if status == "in_progress":
        if task["assignee_user_id"] is None:
            raise ConflictError(f"task {task_id} has no assignee; assign it first")
        blockers = ctx.db.fetch_all(
            "SELECT d.depends_on_task_id FROM task_dependencies d JOIN tasks t ON t.task_id = d.depends_on_task_id "
            "WHERE d.task_id = ? AND t.status <> 'done' ORDER BY d.depends_on_task_id", (task_id,))
        if blockers:
            raise ConflictError(f"task {task_id} is blocked by unfinished tasks "
                                f"{', '.join(b['depends_on_task_id'] for b in blockers)}")
    if status == "done" and task["requires_approval"] == 1:
        latest = ctx.db.fetch_one(
            "SELECT status FROM approvals WHERE task_id = ? ORDER BY requested_at DESC, approval_id DESC LIMIT 1",
            (task_id,))
        if latest is None or latest["status"] != "approved":
            raise ConflictError(f"task {task_id} requires an approved approval before it can be done")
    completed_on = ctx.today if status == "done" else None
    sprint_id = task["sprint_id"]
    withdrawn = []
    if status == "cancelled":
        withdrawn = [r["approval_id"] for r in ctx.db.fetch_all(
            "SELECT approval_id FROM approvals WHERE task_id = ? AND status = 'pending' ORDER BY approval_id",
            (task_id,))]
        ctx.db.execute("UPDATE approvals SET status = 'withdrawn', resolved_at = ? "
                       "WHERE task_id = ? AND status = 'pending'", (ctx.now, task_id))
        if sprint_id is not None:
            sprint = ctx.db.fetch_one("SELECT status FROM sprints WHERE sprint_id = ?", (sprint_id,))
            if sprint["status"] != "closed":
                sprint_id = None
    ctx.db.execute("UPDATE tasks SET status = ?, completed_on = ?, sprint_id = ? WHERE task_id = ?",
                   (status, completed_on, sprint_id, task_id))
    return {"task_id": task_id, "previous_status": current, "status": status, "completed_on": completed_on,
            "sprint_id": sprint_id, "withdrawn_approval_ids": withdrawn}


def add_task_dependency(ctx, acting_user_id: str, task_id: str, depends_on_task_id: str) -> dict:
    acting_user(ctx, acting_user_id)
    task = load_task(ctx, task_id)
    other = load_task(ctx, depends_on_task_id)
    require_role(ctx, task["project_id"], acting_user_id, CONTRIBUTING_ROLES, ADD_DEPENDENCY_RULE)
    if task_id == depends_on_task_id:
        raise InvalidArgumentError("a task cannot depend on itself")
    if task["project_id"] != other["project_id"]:
        raise InvalidArgumentError(f"tasks {task_id} and {depends_on_task_id} are in different projects")
    writable_project(ctx, task["project_id"])
    if task["status"] not in ("backlog", "todo"):
        raise ConflictError(f"task {task_id} is {task['status']}; dependencies can only be added before work starts")
    if other["status"] == "cancelled":
        raise ConflictError(f"task {depends_on_task_id} is cancelled and cannot block anything")
    existing = ctx.db.fetch_one("SELECT 1 AS x FROM task_dependencies WHERE task_id = ? AND depends_on_task_id = ?",
                                (task_id, depends_on_task_id))
    if existing is not None:
        raise ConflictError(f"task {task_id} already depends on {depends_on_task_id}")
    cycle = ctx.db.fetch_one(
        "WITH RECURSIVE upstream(id) AS (SELECT ? UNION SELECT d.depends_on_task_id FROM task_dependencies d "
        "JOIN upstream u ON d.task_id = u.id) SELECT 1 AS x FROM upstream WHERE id = ?",
        (depends_on_task_id, task_id))
    if cycle is not None:
        raise ConflictError(f"task {depends_on_task_id} already depends, directly or not, on {task_id}: "
                            "this would create a cycle")
    ctx.db.execute("INSERT INTO task_dependencies (task_id, depends_on_task_id, created_on) VALUES (?, ?, ?)",
                   (task_id, depends_on_task_id, ctx.today))
    return {"task_id": task_id, "depends_on_task_id": depends_on_task_id, "created_on": ctx.today,
            "depends_on_status": other["status"]}


def remove_task_dependency(ctx, acting_user_id: str, task_id: str, depends_on_task_id: str) -> dict:
    acting_user(ctx, acting_user_id)
    task = load_task(ctx, task_id)
    require_role(ctx, task["project_id"], acting_user_id, CONTRIBUTING_ROLES, REMOVE_DEPENDENCY_RULE)
    require_row(
        ctx,
        "SELECT 1 AS x FROM task_dependencies WHERE task_id = ? AND depends_on_task_id = ?",
        (task_id, depends_on_task_id),
        f"task {task_id} does not depend on {depends_on_task_id}",
    )
    writable_project(ctx, task["project_id"])
    ctx.db.execute("DELETE FROM task_dependencies WHERE task_id = ? AND depends_on_task_id = ?",
                   (task_id, depends_on_task_id))
    remaining = ctx.db.fetch_all(
        "SELECT depends_on_task_id FROM task_dependencies WHERE task_id = ? ORDER BY depends_on_task_id", (task_id,))
    return {"task_id": task_id, "depends_on_task_id": depends_on_task_id,
            "remaining_dependency_ids": [r["depends_on_task_id"] for r in remaining]}


# ----------------------------------------------------------------------------- sprints and milestones

def create_sprint(ctx, acting_user_id: str, project_id: str, name: str, start_date: str, end_date: str,
                  capacity_hours: int, goal: str | None = None) -> dict:
    acting_user(ctx, acting_user_id)
    project = load_project(ctx, project_id)
    require_role(ctx, project_id, acting_user_id, MANAGING_ROLES, CREATE_SPRINT_RULE)
    if project["status"] not in ("planning", "active"):
        raise NotPermittedError(f"project {project_id} is {project['status']}; sprints need a planning or active "
                                "project")
    name = name.strip()
    if not name:
        raise InvalidArgumentError("name must not be empty")
    start = require_date(start_date, "start_date")
    end = require_date(end_date, "end_date")
    if start < date.fromisoformat(ctx.today):
        raise InvalidArgumentError(f"start_date {start_date} is in the past (today is {ctx.today})")
    length = (end - start).days
    if length < SPRINT_MIN_DAYS or length > SPRINT_MAX_DAYS:
        raise InvalidArgumentError(f"end_date must be {SPRINT_MIN_DAYS} to {SPRINT_MAX_DAYS} days after start_date, "
                                   f"got {length}")
    if capacity_hours <= 0:
        raise InvalidArgumentError("capacity_hours must be more than 0")
    overlap = ctx.db.fetch_one(
        "SELECT sprint_id FROM sprints WHERE project_id = ? AND status <> 'closed' "
        "AND start_date <= ? AND end_date >= ? ORDER BY sprint_id LIMIT 1", (project_id, end_date, start_date))
    if overlap is not None:
        raise ConflictError(f"the dates overlap sprint {overlap['sprint_id']} of {project_id}")
    sprint_id = ctx.new_id("SPR")
    ctx.db.execute(
        "INSERT INTO sprints (sprint_id, project_id, name, goal, start_date, end_date, capacity_hours, status, "
        "closed_on) VALUES (?, ?, ?, ?, ?, ?, ?, 'planned', NULL)",
        (sprint_id, project_id, name, goal, start_date, end_date, capacity_hours))
    return {"sprint_id": sprint_id, "project_id": project_id, "name": name, "status": "planned",
            "start_date": start_date, "end_date": end_date, "capacity_hours": capacity_hours}


def start_sprint(ctx, acting_user_id: str, sprint_id: str) -> dict:
    acting_user(ctx, acting_user_id)
    sprint = require_row(ctx, "SELECT * FROM sprints WHERE sprint_id = ?", (sprint_id,), f"no sprint {sprint_id}")
    require_role(ctx, sprint["project_id"], acting_user_id, MANAGING_ROLES, START_SPRINT_RULE)
    project = load_project(ctx, sprint["project_id"])
    if project["status"] != "active":
        raise NotPermittedError(f"project {project['project_id']} is {project['status']}; only active projects run "
                                "sprints")
    if sprint["status"] != "planned":
        raise ConflictError(f"sprint {sprint_id} is {sprint['status']}, not planned")
    running = ctx.db.fetch_one("SELECT sprint_id FROM sprints WHERE project_id = ? AND status = 'active'",
                               (sprint["project_id"],))
    if running is not None:
        raise ConflictError(f"sprint {running['sprint_id']} is already active in {sprint['project_id']}; close it "
                            "first")
    tasks = ctx.db.fetch_one("SELECT count(*) AS n FROM tasks WHERE sprint_id = ? AND status <> 'cancelled'",
                             (sprint_id,))["n"]
    if tasks == 0:
        raise ConflictError(f"sprint {sprint_id} has no tasks; add tasks with add_task_to_sprint first")
    ctx.db.execute("UPDATE sprints SET status = 'active' WHERE sprint_id = ?", (sprint_id,))
    return {"sprint_id": sprint_id, "project_id": sprint["project_id"], "status": "active", "task_count": tasks,
            "committed_hours": sprint_committed(ctx, sprint_id), "capacity_hours": sprint["capacity_hours"]}


def add_task_to_sprint(ctx, acting_user_id: str, task_id: str, sprint_id: str) -> dict:
    acting_user(ctx, acting_user_id)
    task = load_task(ctx, task_id)
    sprint = require_row(ctx, "SELECT * FROM sprints WHERE sprint_id = ?", (sprint_id,), f"no sprint {sprint_id}")
    require_role(ctx, task["project_id"], acting_user_id, MANAGING_ROLES, PLAN_SPRINT_RULE)
    if sprint["project_id"] != task["project_id"]:
        raise InvalidArgumentError(f"sprint {sprint_id} belongs to project {sprint['project_id']}, task {task_id} "
                                   f"to {task['project_id']}")
    writable_project(ctx, task["project_id"])
    if sprint["status"] == "closed":
        raise ConflictError(f"sprint {sprint_id} is closed")
    if task["status"] in CLOSED_TASK_STATUSES:
        raise ConflictError(f"task {task_id} is {task['status']}")
    if task["sprint_id"] == sprint_id:
        raise ConflictError(f"task {task_id} is already in sprint {sprint_id}")
    if task["estimate_hours"] is None:
        raise ConflictError(f"task {task_id} has no estimate; set estimate_hours with update_task first")
    committed = sprint_committed(ctx, sprint_id) + task["estimate_hours"]
    if committed > sprint["capacity_hours"]:
        raise ConflictError(f"sprint {sprint_id} would hold {committed} h, over its capacity of "
                            f"{sprint['capacity_hours']} h")
    status = "todo" if task["status"] == "backlog" else task["status"]
    ctx.db.execute("UPDATE tasks SET sprint_id = ?, status = ? WHERE task_id = ?", (sprint_id, status, task_id))
    return {"task_id": task_id, "sprint_id": sprint_id, "previous_sprint_id": task["sprint_id"], "status": status,
            "committed_hours": committed, "capacity_hours": sprint["capacity_hours"]}


def close_sprint(ctx, acting_user_id: str, sprint_id: str, carry_over_sprint_id: str | None = None) -> dict:
    acting_user(ctx, acting_user_id)
    sprint = require_row(ctx, "SELECT * FROM sprints WHERE sprint_id = ?", (sprint_id,), f"no sprint {sprint_id}")
    require_role(ctx, sprint["project_id"], acting_user_id, MANAGING_ROLES, CLOSE_SPRINT_RULE)
    writable_project(ctx, sprint["project_id"])
    if sprint["status"] != "active":
        raise ConflictError(f"sprint {sprint_id} is {sprint['status']}; only an active sprint can be closed")
    if carry_over_sprint_id is not None:
        target = require_row(
            ctx,
            "SELECT * FROM sprints WHERE sprint_id = ?",
            (carry_over_sprint_id,),
            f"no sprint {carry_over_sprint_id}",
        )
        if target["project_id"] != sprint["project_id"]:
            raise InvalidArgumentError(f"sprint {carry_over_sprint_id} belongs to another project")
        if target["status"] != "planned":
            raise ConflictError(f"carry-over sprint {carry_over_sprint_id} is {target['status']}, not planned")
    tasks = ctx.db.fetch_all("SELECT task_id, status FROM tasks WHERE sprint_id = ? ORDER BY task_id", (sprint_id,))
    completed = [t["task_id"] for t in tasks if t["status"] == "done"]
    unfinished = [t["task_id"] for t in tasks if t["status"] in OPEN_TASK_STATUSES]
    ctx.db.execute("UPDATE tasks SET sprint_id = ? WHERE sprint_id = ? "
                   "AND status IN ('backlog', 'todo', 'in_progress', 'in_review')", (carry_over_sprint_id, sprint_id))
    ctx.db.execute("UPDATE sprints SET status = 'closed', closed_on = ? WHERE sprint_id = ?", (ctx.today, sprint_id))
    return {"sprint_id": sprint_id, "status": "closed", "closed_on": ctx.today, "completed_task_ids": completed,
            "carried_over_task_ids": unfinished if carry_over_sprint_id is not None else [],
            "returned_to_backlog_task_ids": [] if carry_over_sprint_id is not None else unfinished,
            "carry_over_sprint_id": carry_over_sprint_id}


def mark_milestone_reached(ctx, acting_user_id: str, milestone_id: str) -> dict:
    acting_user(ctx, acting_user_id)
    milestone = require_row(
        ctx,
        "SELECT * FROM milestones WHERE milestone_id = ?",
        (milestone_id,),
        f"no milestone {milestone_id}; list milestones with list_milestones",
    )
    require_role(ctx, milestone["project_id"], acting_user_id, MANAGING_ROLES, MILESTONE_RULE)
    writable_project(ctx, milestone["project_id"])
    if milestone["status"] == "reached":
        raise ConflictError(f"milestone {milestone_id} was already reached on {milestone['reached_on']}")
    counts = ctx.db.fetch_one(
        "SELECT count(*) AS total, coalesce(sum(status IN ('backlog', 'todo', 'in_progress', 'in_review')), 0) "
        "AS still_open, coalesce(sum(status = 'done'), 0) AS done FROM tasks WHERE milestone_id = ?",
        (milestone_id,))
    if counts["done"] == 0:
        raise ConflictError(f"milestone {milestone_id} has no completed task")
    if counts["still_open"] > 0:
        raise ConflictError(f"milestone {milestone_id} still has {counts['still_open']} open tasks")
    ctx.db.execute("UPDATE milestones SET status = 'reached', reached_on = ? WHERE milestone_id = ?",
                   (ctx.today, milestone_id))
    return {"milestone_id": milestone_id, "project_id": milestone["project_id"], "previous_status": milestone["status"],
            "status": "reached", "reached_on": ctx.today, "done_task_count": counts["done"],
            "late": milestone["due_date"] < ctx.today}


# ----------------------------------------------------------------------------- time, comments, labels

def log_time(ctx, acting_user_id: str, task_id: str, work_date: str, hours: float, note: str | None = None,
             billable: bool = True) -> dict:
    user = acting_user(ctx, acting_user_id)
    user_id = acting_user_id
    task = load_task(ctx, task_id)
    require_role(ctx, task["project_id"], user_id, CONTRIBUTING_ROLES, LOG_TIME_RULE)
    writable_project(ctx, task["project_id"])
    if user["status"] != "active":
        raise NotPermittedError(f"user {user_id} is deactivated")
    day = require_date(work_date, "work_date")
    today = date.fromisoformat(ctx.today)
    if day > today:
        raise InvalidArgumentError(f"work_date {work_date} is in the future")
    if day < today - timedelta(days=TIMESHEET_LOCK_DAYS):
        raise NotPermittedError(f"timesheets before {(today - timedelta(days=TIMESHEET_LOCK_DAYS)).isoformat()} "
                                "are locked")
    if work_date < task["created_on"]:
        raise InvalidArgumentError(f"work_date {work_date} is before the task was created ({task['created_on']})")
    if hours <= 0 or hours > MAX_ENTRY_HOURS or hours * 4 != int(hours * 4):
        raise InvalidArgumentError(f"hours must be more than 0, at most {MAX_ENTRY_HOURS}, in quarter hours")
    if task["status"] in ("backlog", "cancelled"):
        raise ConflictError(f"task {task_id} is {task['status']}; time can only be logged on started or planned work")
    day_total = ctx.db.fetch_one("SELECT coalesce(sum(hours), 0) AS h FROM time_logs WHERE user_id = ? "
                                 "AND work_date = ?", (user_id, work_date))["h"] + hours
    if day_total > MAX_DAILY_HOURS:
        raise ConflictError(f"user {user_id} would have {day_total} h on {work_date}; the daily limit is "
                            f"{MAX_DAILY_HOURS} h")
    time_log_id = ctx.new_id("TL")
    ctx.db.execute(
        "INSERT INTO time_logs (time_log_id, task_id, user_id, work_date, hours, billable, note, logged_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (time_log_id, task_id, user_id, work_date, float(hours), 1 if billable else 0, note, ctx.now))
    ctx.db.execute("UPDATE tasks SET logged_hours = logged_hours + ? WHERE task_id = ?", (float(hours), task_id))
    return {"time_log_id": time_log_id, "task_id": task_id, "user_id": user_id, "work_date": work_date,
            "hours": float(hours), "billable": billable, "task_logged_hours": task["logged_hours"] + hours,
            "user_day_total_hours": float(day_total)}


def delete_time_log(ctx, acting_user_id: str, time_log_id: str) -> dict:
    acting_user(ctx, acting_user_id)
    entry = require_row(
        ctx,
        "SELECT * FROM time_logs WHERE time_log_id = ?",
        (time_log_id,),
        f"no time log {time_log_id}; list entries with list_time_logs",
    )
    require_permission(entry["user_id"] == acting_user_id, DELETE_TIME_LOG_RULE)
    task = load_task(ctx, entry["task_id"])
    writable_project(ctx, task["project_id"])
    lock = date.fromisoformat(ctx.today) - timedelta(days=TIMESHEET_LOCK_DAYS)
    if entry["work_date"] < lock.isoformat():
        raise NotPermittedError(f"time log {time_log_id} is dated {entry['work_date']}, in a locked timesheet "
                                f"(before {lock.isoformat()})")
    ctx.db.execute("DELETE FROM time_logs WHERE time_log_id = ?", (time_log_id,))
    remaining = max(0.0, task["logged_hours"] - entry["hours"])
    ctx.db.execute("UPDATE tasks SET logged_hours = ? WHERE task_id = ?", (remaining, task["task_id"]))
    return {"time_log_id": time_log_id, "task_id": task["task_id"], "hours": entry["hours"],
            "task_logged_hours": remaining}


def add_comment(ctx, acting_user_id: str, task_id: str, body: str) -> dict:
    acting_user(ctx, acting_user_id)
    author_user_id = acting_user_id
    task = load_task(ctx, task_id)
    require_role(ctx, task["project_id"], author_user_id, ROLES, COMMENT_RULE)
    writable_project(ctx, task["project_id"])
    if not body.strip() or len(body) > MAX_COMMENT_LENGTH:
        raise InvalidArgumentError(f"body must be 1 to {MAX_COMMENT_LENGTH} characters of text")
    comment_id = ctx.new_id("CMT")
    ctx.db.execute("INSERT INTO comments (comment_id, task_id, author_user_id, body, created_at) "
                   "VALUES (?, ?, ?, ?, ?)", (comment_id, task_id, author_user_id, body, ctx.now))
    return {"comment_id": comment_id, "task_id": task_id, "author_user_id": author_user_id, "created_at": ctx.now}


def add_label_to_task(ctx, acting_user_id: str, task_id: str, label_id: str) -> dict:
    acting_user(ctx, acting_user_id)
    task = load_task(ctx, task_id)
    label = require_row(
        ctx,
        "SELECT * FROM labels WHERE label_id = ?",
        (label_id,),
        f"no label {label_id}; list labels with list_labels",
    )
    require_role(ctx, task["project_id"], acting_user_id, CONTRIBUTING_ROLES, LABEL_RULE)
    project = writable_project(ctx, task["project_id"])
    if label["workspace_id"] != project["workspace_id"]:
        raise InvalidArgumentError(f"label {label_id} belongs to workspace {label['workspace_id']}, the task to "
                                   f"{project['workspace_id']}")
    current = [r["label_id"] for r in ctx.db.fetch_all(
        "SELECT label_id FROM task_labels WHERE task_id = ? ORDER BY label_id", (task_id,))]
    if label_id in current:
        raise ConflictError(f"task {task_id} already has label {label_id}")
    if len(current) >= MAX_LABELS_PER_TASK:
        raise ConflictError(f"task {task_id} already has {MAX_LABELS_PER_TASK} labels")
    ctx.db.execute("INSERT INTO task_labels (task_id, label_id, added_on) VALUES (?, ?, ?)",
                   (task_id, label_id, ctx.today))
    return {"task_id": task_id, "label_id": label_id, "label_ids": sorted(current + [label_id])}


# ----------------------------------------------------------------------------- approvals

def request_approval(ctx, acting_user_id: str, task_id: str, approver_user_id: str, note: str | None = None) -> dict:
    acting_user(ctx, acting_user_id)
    requested_by_user_id = acting_user_id
    task = load_task(ctx, task_id)
    require_role(ctx, task["project_id"], requested_by_user_id, CONTRIBUTING_ROLES, REQUEST_APPROVAL_RULE)
    writable_project(ctx, task["project_id"])
    if task["requires_approval"] != 1:
        raise ConflictError(f"task {task_id} does not require approval")
    if task["status"] != "in_review":
        raise ConflictError(f"task {task_id} is {task['status']}; move it to in_review before asking for approval")
    if approver_user_id == requested_by_user_id:
        raise InvalidArgumentError("the approver must be someone other than the requester")
    if member_role(ctx, task["project_id"], approver_user_id) not in ("owner", "manager"):
        raise NotPermittedError(f"user {approver_user_id} is not an owner or manager of {task['project_id']}")
    pending = ctx.db.fetch_one("SELECT approval_id FROM approvals WHERE task_id = ? AND status = 'pending'",
                               (task_id,))
    if pending is not None:
        raise ConflictError(f"approval {pending['approval_id']} is already pending for task {task_id}")
    approval_id = ctx.new_id("APR")
    ctx.db.execute(
        "INSERT INTO approvals (approval_id, task_id, requested_by_user_id, approver_user_id, status, request_note, "
        "requested_at, resolved_at, decision_note) VALUES (?, ?, ?, ?, 'pending', ?, ?, NULL, NULL)",
        (approval_id, task_id, requested_by_user_id, approver_user_id, note, ctx.now))
    return {"approval_id": approval_id, "task_id": task_id, "status": "pending",
            "requested_by_user_id": requested_by_user_id, "approver_user_id": approver_user_id,
            "requested_at": ctx.now}


def decide_approval(ctx, acting_user_id: str, approval_id: str, decision: str, note: str | None = None) -> dict:
    acting_user(ctx, acting_user_id)
    approval = require_row(
        ctx,
        "SELECT * FROM approvals WHERE approval_id = ?",
        (approval_id,),
        f"no approval {approval_id}; list approvals with list_approvals",
    )
    require_choice(decision, ("approved", "rejected"), "decision")
    require_permission(approval["approver_user_id"] == acting_user_id, DECIDE_APPROVAL_RULE)
    if approval["status"] != "pending":
        raise ConflictError(f"approval {approval_id} is already {approval['status']}")
    if decision == "rejected" and (note is None or not note.strip()):
        raise InvalidArgumentError("a rejection needs a note saying what to change")
    ctx.db.execute("UPDATE approvals SET status = ?, resolved_at = ?, decision_note = ? WHERE approval_id = ?",
                   (decision, ctx.now, note, approval_id))
    task = load_task(ctx, approval["task_id"])
    task_status = task["status"]
    if decision == "rejected" and task_status == "in_review":
        task_status = "in_progress"
        ctx.db.execute("UPDATE tasks SET status = 'in_progress' WHERE task_id = ?", (task["task_id"],))
    return {"approval_id": approval_id, "task_id": task["task_id"], "status": decision, "resolved_at": ctx.now,
            "task_status": task_status}
