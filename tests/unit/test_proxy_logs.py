"""The test proxies' counts read their whole log (tests/support/proxies.py): CI once failed
because they read only its last 2,000 characters, and Chromium's own background requests
(``accounts.google.com``, refused: no DNS here) had pushed the one line counted out of them."""

from __future__ import annotations

from pathlib import Path

from tests.support.proxies import DanteProxy, TinyProxy


def test_a_socks_connection_is_counted_however_much_the_log_says_after_it(tmp_path: Path) -> None:
    proxy = DanteProxy(tmp_path)
    noise = (
        "Dec  6 19:47:01 (1796586421.135045) danted[10905]: info: block(1): tcp/connect ]: "
        '127.0.0.1.40464 127.0.0.1.47847: could not resolve hostname "accounts.google.com"\n'
    )
    proxy.log.write_text(
        "Dec  6 19:46:50 (1796586410.1) danted[10904]: info: pass(1): tcp/connect [: "
        "127.0.0.1.40400 127.0.0.1.47847 -> 127.0.0.1.40401 127.0.0.1.8123\n" + noise * 100
    )
    assert len(proxy.log_text()) > 10_000
    assert proxy.connections_to(8123) == 1


def test_a_proxied_request_is_counted_however_much_the_log_says_after_it(tmp_path: Path) -> None:
    proxy = TinyProxy(tmp_path)
    proxy.log.write_text(
        "INFO      Dec 06 19:46:50.123 [1]: Request (file descriptor 7): GET "
        "http://127.0.0.1:8123/chat HTTP/1.1\n"
        + "INFO      Dec 06 19:46:51.000 [1]: Request (file descriptor 8): CONNECT "
        "accounts.google.com:443 HTTP/1.1\n" * 100
    )
    assert proxy.requests_to(8123) == 1
