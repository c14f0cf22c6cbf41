"""Gunicorn target: ``gunicorn -c deploy/gunicorn.conf.py service.wsgi:app``."""

from service import create_app

app = create_app()
