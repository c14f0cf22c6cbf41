import pytest

from service import create_app
from service.settings import TestSettings
from tests.problems import body_of, error_code


@pytest.fixture(scope="session")
def app():
    return create_app(TestSettings())


@pytest.fixture()
def client(app):
    return app.test_client()


def post(client, path, body, status=200):
    """POST JSON and assert the status; returns the JSON answer."""
    response = client.post(path, json=body)
    assert response.status_code == status, (response.status_code, response.get_json())
    return response.get_json()


def assert_error(answer, code):
    """``answer`` (a response or its JSON) is problem details with ``code``."""
    assert error_code(answer) == code, body_of(answer)
