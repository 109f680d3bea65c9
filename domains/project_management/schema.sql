-- Project management world: workspaces (organisations) with users, projects and their
-- members, tasks with dependencies, sprints, milestones, time logs, comments, labels and
-- approvals. Dates are YYYY-MM-DD, timestamps YYYY-MM-DDTHH:MM:SS, hours are decimal hours.

CREATE TABLE workspaces (
    workspace_id TEXT PRIMARY KEY CHECK (workspace_id GLOB 'WS-[0-9][0-9][0-9][0-9][0-9]'),
    name TEXT NOT NULL CHECK (length(trim(name)) > 0),
    plan TEXT NOT NULL CHECK (plan IN ('free', 'team', 'business', 'enterprise')),
    status TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
    billing_email TEXT NOT NULL CHECK (billing_email LIKE '%_@_%._%'),
    created_on TEXT NOT NULL CHECK (date(created_on) = created_on)
) STRICT;

CREATE TABLE users (
    user_id TEXT PRIMARY KEY CHECK (user_id GLOB 'USR-[0-9][0-9][0-9][0-9][0-9]'),
    workspace_id TEXT NOT NULL REFERENCES workspaces(workspace_id),
    full_name TEXT NOT NULL CHECK (length(trim(full_name)) > 0),
    email TEXT NOT NULL UNIQUE CHECK (email LIKE '%_@_%._%'),
    job_title TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'deactivated')),
    joined_on TEXT NOT NULL CHECK (date(joined_on) = joined_on)
) STRICT;

CREATE TABLE projects (
    project_id TEXT PRIMARY KEY CHECK (project_id GLOB 'PRJ-[0-9][0-9][0-9][0-9][0-9]'),
    workspace_id TEXT NOT NULL REFERENCES workspaces(workspace_id),
    name TEXT NOT NULL CHECK (length(trim(name)) > 0),
    status TEXT NOT NULL CHECK (status IN ('planning', 'active', 'on_hold', 'completed', 'archived')),
    lead_user_id TEXT NOT NULL REFERENCES users(user_id),
    start_date TEXT NOT NULL CHECK (date(start_date) = start_date),
    target_date TEXT NOT NULL CHECK (date(target_date) = target_date AND target_date >= start_date),
    budget_hours INTEGER NOT NULL CHECK (budget_hours >= 0),
    description TEXT,
    created_on TEXT NOT NULL CHECK (date(created_on) = created_on),
    UNIQUE (workspace_id, name)
) STRICT;

CREATE TABLE project_members (
    project_id TEXT NOT NULL REFERENCES projects(project_id),
    user_id TEXT NOT NULL REFERENCES users(user_id),
    role TEXT NOT NULL CHECK (role IN ('owner', 'manager', 'contributor', 'viewer')),
    joined_on TEXT NOT NULL CHECK (date(joined_on) = joined_on),
    PRIMARY KEY (project_id, user_id)
) STRICT;

CREATE TABLE sprints (
    sprint_id TEXT PRIMARY KEY CHECK (sprint_id GLOB 'SPR-[0-9][0-9][0-9][0-9][0-9]'),
    project_id TEXT NOT NULL REFERENCES projects(project_id),
    name TEXT NOT NULL CHECK (length(trim(name)) > 0),
    goal TEXT,
    start_date TEXT NOT NULL CHECK (date(start_date) = start_date),
    end_date TEXT NOT NULL CHECK (date(end_date) = end_date AND end_date > start_date),
    capacity_hours INTEGER NOT NULL CHECK (capacity_hours > 0),
    status TEXT NOT NULL CHECK (status IN ('planned', 'active', 'closed')),
    closed_on TEXT CHECK (closed_on IS NULL OR date(closed_on) = closed_on),
    CHECK ((status = 'closed') = (closed_on IS NOT NULL))
) STRICT;

CREATE TABLE milestones (
    milestone_id TEXT PRIMARY KEY CHECK (milestone_id GLOB 'MS-[0-9][0-9][0-9][0-9][0-9]'),
    project_id TEXT NOT NULL REFERENCES projects(project_id),
    name TEXT NOT NULL CHECK (length(trim(name)) > 0),
    due_date TEXT NOT NULL CHECK (date(due_date) = due_date),
    status TEXT NOT NULL CHECK (status IN ('open', 'reached', 'missed')),
    reached_on TEXT CHECK (reached_on IS NULL OR date(reached_on) = reached_on),
    CHECK ((status = 'reached') = (reached_on IS NOT NULL))
) STRICT;

CREATE TABLE tasks (
    task_id TEXT PRIMARY KEY CHECK (task_id GLOB 'TSK-[0-9][0-9][0-9][0-9][0-9]'),
    project_id TEXT NOT NULL REFERENCES projects(project_id),
    title TEXT NOT NULL CHECK (length(trim(title)) > 0),
    description TEXT,
    status TEXT NOT NULL CHECK (status IN ('backlog', 'todo', 'in_progress', 'in_review', 'done', 'cancelled')),
    priority TEXT NOT NULL CHECK (priority IN ('low', 'medium', 'high', 'urgent')),
    assignee_user_id TEXT REFERENCES users(user_id),
    reporter_user_id TEXT NOT NULL REFERENCES users(user_id),
    sprint_id TEXT REFERENCES sprints(sprint_id),
    milestone_id TEXT REFERENCES milestones(milestone_id),
    estimate_hours REAL CHECK (estimate_hours IS NULL OR (estimate_hours >= 0 AND estimate_hours <= 400)),
    logged_hours REAL NOT NULL CHECK (logged_hours >= 0),
    due_date TEXT CHECK (due_date IS NULL OR date(due_date) = due_date),
    requires_approval INTEGER NOT NULL CHECK (requires_approval IN (0, 1)),
    created_on TEXT NOT NULL CHECK (date(created_on) = created_on),
    completed_on TEXT CHECK (completed_on IS NULL OR date(completed_on) = completed_on),
    CHECK ((status = 'done') = (completed_on IS NOT NULL))
) STRICT;

CREATE TABLE task_dependencies (
    task_id TEXT NOT NULL REFERENCES tasks(task_id),
    depends_on_task_id TEXT NOT NULL REFERENCES tasks(task_id),
    created_on TEXT NOT NULL CHECK (date(created_on) = created_on),
    PRIMARY KEY (task_id, depends_on_task_id),
    CHECK (task_id <> depends_on_task_id)
) STRICT;

CREATE TABLE time_logs (
    time_log_id TEXT PRIMARY KEY CHECK (time_log_id GLOB 'TL-[0-9][0-9][0-9][0-9][0-9]'),
    task_id TEXT NOT NULL REFERENCES tasks(task_id),
    user_id TEXT NOT NULL REFERENCES users(user_id),
    work_date TEXT NOT NULL CHECK (date(work_date) = work_date),
    hours REAL NOT NULL CHECK (hours > 0 AND hours <= 12),
    billable INTEGER NOT NULL CHECK (billable IN (0, 1)),
    note TEXT,
    logged_at TEXT NOT NULL
) STRICT;

CREATE TABLE comments (
    comment_id TEXT PRIMARY KEY CHECK (comment_id GLOB 'CMT-[0-9][0-9][0-9][0-9][0-9]'),
    task_id TEXT NOT NULL REFERENCES tasks(task_id),
    author_user_id TEXT NOT NULL REFERENCES users(user_id),
    body TEXT NOT NULL CHECK (length(trim(body)) > 0 AND length(body) <= 2000),
    created_at TEXT NOT NULL
) STRICT;

CREATE TABLE labels (
    label_id TEXT PRIMARY KEY CHECK (label_id GLOB 'LBL-[0-9][0-9][0-9][0-9][0-9]'),
    workspace_id TEXT NOT NULL REFERENCES workspaces(workspace_id),
    name TEXT NOT NULL CHECK (length(trim(name)) > 0),
    color TEXT NOT NULL CHECK (color GLOB '#[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
    UNIQUE (workspace_id, name)
) STRICT;

CREATE TABLE task_labels (
    task_id TEXT NOT NULL REFERENCES tasks(task_id),
    label_id TEXT NOT NULL REFERENCES labels(label_id),
    added_on TEXT NOT NULL CHECK (date(added_on) = added_on),
    PRIMARY KEY (task_id, label_id)
) STRICT;

CREATE TABLE approvals (
    approval_id TEXT PRIMARY KEY CHECK (approval_id GLOB 'APR-[0-9][0-9][0-9][0-9][0-9]'),
    task_id TEXT NOT NULL REFERENCES tasks(task_id),
    requested_by_user_id TEXT NOT NULL REFERENCES users(user_id),
    approver_user_id TEXT NOT NULL REFERENCES users(user_id),
    status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'withdrawn')),
    request_note TEXT,
    requested_at TEXT NOT NULL,
    resolved_at TEXT,
    decision_note TEXT,
    CHECK (approver_user_id <> requested_by_user_id),
    CHECK ((status = 'pending') = (resolved_at IS NULL))
) STRICT;
