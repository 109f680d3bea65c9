"""The pipeline stages, one module each (see generator/pipeline.py for the order)."""
