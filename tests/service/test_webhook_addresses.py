"""The webhook address policy and the delivery client, without Redis: every address form
that reaches a private, loopback or otherwise non-public host is refused at creation
(422 naming the field) or at connect; the client keeps its deadlines and its answer cap
against real local sockets (tests only send to 127.0.0.1)."""

from __future__ import annotations

import time

import pytest

from bench.fair_use import Receiver
from service.domain_errors import InvalidCallback
from service.errors import domain_status
from service.webhooks import (
    AddressPolicy,
    DeliveryError,
    Limits,
    Refused,
    check_callback_url,
    literal_address,
    post,
    request_bytes,
    resolve,
)

REFUSED = [
    # IPv4, in every spelling the resolver reads
    "http://127.0.0.1/hook",
    "http://2130706433/hook",  # decimal
    "http://0177.0.0.1/hook",  # octal
    "http://0x7f.1/hook",  # hex, short
    "http://0x7f000001/hook",
    "http://017700000001/hook",
    "http://127.1/hook",  # short
    "http://127.0.0.1:6379/",  # the embedded Redis's kind of port
    "http://10.0.0.1/hook",
    "http://172.16.5.4/hook",
    "http://192.168.1.1/hook",
    "http://169.254.169.254/latest/meta-data",  # cloud metadata
    "http://100.64.0.1/hook",  # CGNAT
    "http://0.0.0.0/hook",
    "http://224.0.0.1/hook",  # multicast
    "http://240.0.0.1/hook",  # reserved
    "http://255.255.255.255/hook",
    "http://198.18.0.1/hook",
    # IPv6, and every form that embeds an IPv4 address
    "http://[::1]/hook",
    "http://[::]/hook",
    "http://[::ffff:127.0.0.1]/hook",  # IPv4-mapped
    "http://[::ffff:7f00:1]/hook",
    "http://[::ffff:10.0.0.1]/hook",
    "http://[::ffff:0:7f00:1]/hook",  # IPv4-translated
    "http://[::127.0.0.1]/hook",  # IPv4-compatible
    "http://[::a00:1]/hook",
    "http://[::8.8.8.8]/hook",  # compatible: refused whatever it embeds
    "http://[64:ff9b::127.0.0.1]/hook",  # NAT64
    "http://[64:ff9b::a9fe:a9fe]/hook",
    "http://[64:ff9b:1::1]/hook",  # local-use NAT64
    "http://[2002:7f00:1::]/hook",  # 6to4 of 127.0.0.1
    "http://[2002:808:808::1]/hook",  # 6to4: refused whole
    "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook",  # Teredo
    "http://[fe80::1]/hook",
    "http://[fe80::1%25eth0]/hook",
    "http://[fc00::1]/hook",
    "http://[fd12:3456::1]/hook",
    "http://[ff02::1]/hook",
    "http://[2001:db8::1]/hook",
    # a name that resolves to loopback
    "http://localhost/hook",
    "https://localhost:8443/hook",
]


@pytest.mark.parametrize("url", REFUSED)
def test_every_non_public_address_form_is_refused_at_creation(url):
    with pytest.raises(InvalidCallback) as raised:
        check_callback_url(url, allow_private=False, allow_loopback=False)
    assert domain_status(type(raised.value)) == 422 and raised.value.code == "invalid_callback"
    assert raised.value.details == {"field": "callback_url"}


def test_the_table_has_at_least_thirty_forms():
    assert len(REFUSED) >= 30


@pytest.mark.parametrize(
    "url",
    [
        "https://93.184.216.34/hook",
        "http://[2606:4700:4700::1111]/hook",
        "http://[::ffff:8.8.8.8]/hook",  # mapped: judged by the public address it embeds
        "http://[64:ff9b::808:808]/hook",  # NAT64 of a public address
        "http://134744072/hook",  # 8.8.8.8, decimal
    ],
)
def test_public_addresses_are_accepted(url):
    assert check_callback_url(url, allow_private=False, allow_loopback=False) == url


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8080/hook", "http://[::1]/hook", "http://0x7f.1/", "http://[::ffff:127.0.0.1]/"]
)
def test_the_development_setting_lets_loopback_through(url):
    assert check_callback_url(url, allow_private=False, allow_loopback=True) == url


@pytest.mark.parametrize("url", ["http://10.0.0.1/", "http://169.254.169.254/", "http://[fd00::1]/"])
def test_the_development_setting_lets_only_loopback_through(url):
    with pytest.raises(InvalidCallback):
        check_callback_url(url, allow_private=False, allow_loopback=True)


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/a b",
        "http://example.com/\r\nX-Injected: 1",
        "http://exa\tmple.com/",
        "http://example.com/\x00",
        " http://example.com/",
        "http://example.com/" + "a" * 2048,
        "ftp://example.com/hook",
        "javascript:alert(1)",
        "http:///no-host",
        "https://user:pw@example.com/hook",
    ],
)
def test_malformed_callback_urls_are_refused_naming_the_field(url):
    with pytest.raises(InvalidCallback) as raised:
        check_callback_url(url, allow_private=True, allow_loopback=True)
    assert domain_status(type(raised.value)) == 422 and raised.value.details == {"field": "callback_url"}


def test_odd_ipv4_spellings_are_read_as_the_resolver_reads_them():
    for spelling in ("2130706433", "0177.0.0.1", "0x7f.1", "127.1", "0x7f000001"):
        assert str(literal_address(spelling)) == "127.0.0.1"
    assert literal_address("example.com") is None


def test_a_name_is_resolved_once_and_refused_at_connect_when_it_reaches_loopback():
    with pytest.raises(Refused):
        resolve("localhost", 80, AddressPolicy())
    receiver = Receiver("status")
    try:
        with pytest.raises(Refused):
            post(receiver.url.replace("127.0.0.1", "localhost"), b"{}", {}, AddressPolicy(), Limits())
        assert receiver.deliveries() == []  # never connected
    finally:
        receiver.close()


def test_the_request_keeps_the_name_in_its_host_header():
    raw = request_bytes("https://hooks.example.com:8443/a/b?c=1", b"{}", {"X": "1"})
    assert raw.startswith(b"POST /a/b?c=1 HTTP/1.1\r\nHost: hooks.example.com:8443\r\n")


LOOPBACK = AddressPolicy(allow_loopback=True)


@pytest.mark.parametrize("mode", ["trickle", "silent"])
def test_a_slow_or_silent_receiver_costs_one_total_deadline_at_most(mode):
    receiver = Receiver(mode, interval=0.3)
    try:
        start = time.monotonic()
        with pytest.raises(DeliveryError, match="deadline"):
            post(receiver.url, b"{}", {}, LOOPBACK, Limits(connect=1.0, total=1.0))
        assert time.monotonic() - start < 2.0
    finally:
        receiver.close()


@pytest.mark.parametrize("mode", ["garbage", "huge"])
def test_a_malformed_or_endless_answer_is_a_delivery_error(mode):
    receiver = Receiver(mode)
    try:
        with pytest.raises(DeliveryError, match="malformed"):
            post(receiver.url, b"{}", {}, LOOPBACK, Limits(connect=1.0, total=3.0, answer_bytes=4096))
    finally:
        receiver.close()


def test_a_well_behaved_receiver_gets_the_body_and_its_status_is_read():
    receiver = Receiver("status", status=204)
    try:
        assert post(receiver.url, b'{"a":1}', {"Majlis-Attempt": "1"}, LOOPBACK, Limits()) == 204
        [request] = receiver.deliveries()
        assert request.endswith(b'\r\n\r\n{"a":1}') and b"Majlis-Attempt: 1\r\n" in request
    finally:
        receiver.close()


def test_a_closed_port_is_a_delivery_error():
    receiver = Receiver("status")
    receiver.close()
    with pytest.raises(DeliveryError):
        post(receiver.url, b"{}", {}, LOOPBACK, Limits(connect=1.0, total=1.0))


def test_https_connects_to_the_checked_address_and_keeps_the_name_for_tls(tmp_path):
    """The name is resolved once (``localhost``: 127.0.0.1 under the loopback policy), the
    connection goes to that address and the TLS handshake names the URL's host (SNI); a
    certificate the system does not trust is a delivery error, never a fallback."""
    import socket
    import ssl
    import subprocess
    import threading

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    names: list[str | None] = []
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.sni_callback = lambda _sock, name, _ctx: names.append(name)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(5)
    port = server.getsockname()[1]

    def serve() -> None:
        try:
            conn, _ = server.accept()
            with context.wrap_socket(conn, server_side=True):
                pass
        except (OSError, ssl.SSLError):
            pass  # the client refuses the untrusted certificate

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        with pytest.raises(DeliveryError, match="CERTIFICATE"):
            post(f"https://localhost:{port}/hook", b"{}", {}, LOOPBACK, Limits(connect=1.0, total=3.0))
        thread.join(5)
        assert names == ["localhost"]
    finally:
        server.close()
