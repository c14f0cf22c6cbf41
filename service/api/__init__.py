"""HTTP blueprints: one module each, with their schemas in schemas.py."""
