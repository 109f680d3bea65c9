"""Scale out on Ray: several full hosts (Ray actors) behind one control API (issue #22).

Ray is an optional extra (``pip install "scaleenv-mcp[ray]"``). Only this package imports it, and
only when ``--ray`` or ``RayHosts`` is used (``requirement.import_ray`` says how to install it when
it is missing): nothing else of the project needs it. ``router`` (placement and routing over any
hosts) does not import Ray at all; ``actor`` (one host inside a Ray actor) and ``hosts`` (start the
actors, the slots the router drives, ``scaleenv serve --ray``) do, through ``import_ray``. ``episodes``
drives one domain's episodes on the actors as a ``Host`` drives its own (``tasks synth --ray``);
``options`` declares ``--ray`` and ``--hosts`` for every command that takes them; ``ray_tasks`` runs the
per-item work of ``verify --ray`` and ``eval --ray`` as Ray tasks (imports Ray through ``import_ray``).
"""
