"""HTTPS trusts what the operating system trusts (issue 29 item 2): an office whose TLS
inspection re-signs every site with a root pushed by Group Policy. Here the "office root" is a
private CA made for the test; the API simulator and the webhook receiver serve real HTTPS on
127.0.0.1 with a certificate it signed.

The proof is ``test_every_client_trusts_the_system_store``: the root goes into the system's own
bundle (/etc/ssl/certs/ca-certificates.crt, bind-mounted in a private mount namespace of a child
process, so the machine is untouched) with no ``SSL_CERT_*`` variable set, as on an office PC.
There httpx's own default (certifi) refuses the server, which is what the operators saw, and the
app's three kinds of client (model probes, API accounts, webhooks) connect. The tests below it
reach the same clients over HTTPS with the root named by ``SSL_CERT_FILE`` (both trust that
variable): the HTTPS paths themselves, on any machine."""

from __future__ import annotations

import asyncio
import datetime as dt
import ipaddress
import os
import shlex
import shutil
import ssl
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from media_assistant.core.config.notifications import WebhookConfig
from media_assistant.core.model.states import NoticeKind
from media_assistant.core.notices.center import Notice
from media_assistant.providers.api import probe
from media_assistant.providers.api.provider import ApiProvider
from media_assistant.providers.webhooks import WebhookSender
from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator
from tests.integration.test_api_provider import context
from tests.support.webhook_receiver import webhook_receiver

KEY = "sk-office-0123456789"


@dataclass(frozen=True)
class OfficePki:
    ca_file: Path  # the root an administrator pushed to every PC
    server: ssl.SSLContext  # what the inspecting gateway presents for 127.0.0.1


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


@pytest.fixture(scope="module")
def office_pki(tmp_path_factory: pytest.TempPathFactory) -> OfficePki:
    folder = tmp_path_factory.mktemp("pki")
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("Office Inspection Root"))
        .issuer_name(_name("Office Inspection Root"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    leaf_key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(_name("127.0.0.1"))
        .issuer_name(ca.subject)
        .public_key(leaf_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.ExtendedKeyUsage([x509.OID_SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    ca_file = folder / "office-root.pem"
    ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    chain = folder / "server.pem"
    chain.write_bytes(
        leaf.public_bytes(serialization.Encoding.PEM)
        + leaf_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(chain)
    return OfficePki(ca_file, server)


@pytest.fixture
def office_root_trusted(office_pki: OfficePki, monkeypatch: pytest.MonkeyPatch) -> None:
    """The root is in the OS store (and only there: certifi has never heard of it)."""
    monkeypatch.setenv("SSL_CERT_FILE", str(office_pki.ca_file))
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)


@pytest.fixture
async def tls_sim(office_pki: OfficePki) -> AsyncIterator[ApiSimulator]:
    sim = ApiSimulator(ApiSimConfig(time_scale=0.01, seed=5), tls=office_pki.server)
    await sim.start()
    yield sim
    await sim.stop()


async def test_model_probes_trust_the_os_store(
    tls_sim: ApiSimulator, office_root_trusted: None
) -> None:
    assert tls_sim.base_url.startswith("https://")
    assert await probe.list_models(tls_sim.base_url, KEY) == ["sim-chat", "sim-reasoner"]
    answer = await probe.check_connection(tls_sim.base_url, KEY, "sim-chat")
    assert answer.text


async def test_api_accounts_trust_the_os_store(
    tls_sim: ApiSimulator, office_root_trusted: None
) -> None:
    api = ApiProvider("acc", tls_sim.base_url, KEY, connect_timeout_s=5.0, idle_timeout_s=10.0)
    try:
        result = await api.generate(context())
    finally:
        await api.aclose()
    assert result.text.startswith("Answer to: Write a title")
    assert tls_sim.stats()["total"]["served"] == 1


async def test_webhooks_trust_the_os_store(
    office_pki: OfficePki, office_root_trusted: None
) -> None:
    notice = Notice(NoticeKind.BATCH_FAILED, "节日-1", 1_764_483_900.0, {"total": 1})
    with webhook_receiver(tls=office_pki.server) as receiver:
        hook = WebhookConfig(kind="json", url_env="MA_OFFICE_HOOK")
        urls = {"MA_OFFICE_HOOK": receiver.url("json")}

        async def lookup(name: str) -> str | None:
            return urls.get(name)

        sender = WebhookSender([hook], lookup=lookup, retry_delays_s=())
        try:
            delivery = await sender.deliver(0, hook, notice)
        finally:
            await sender.close()
        assert delivery.ok, delivery
        assert receiver.url("json").startswith("https://")
        assert len(receiver.received) == 1


async def test_without_the_root_in_the_os_store_the_probe_says_so(
    tls_sim: ApiSimulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other way round: an untrusted certificate is still refused (verification is on)."""
    empty = tmp_path / "no-roots.pem"
    empty.write_text("")
    monkeypatch.setenv("SSL_CERT_FILE", str(empty))
    with pytest.raises(Exception, match="(?i)certificate"):
        await probe.list_models(tls_sim.base_url, KEY)


_CHILD = """
import asyncio, sys
import httpx
from media_assistant.providers.api import probe
from media_assistant.providers.api.provider import ApiProvider
from media_assistant.providers.webhooks import WebhookSender
from media_assistant.core.config.notifications import WebhookConfig
from media_assistant.core.model.states import NoticeKind
from media_assistant.core.notices.center import Notice
from tests.integration.test_api_provider import context

async def main(base_url: str, hook_url: str) -> None:
    try:
        async with httpx.AsyncClient() as plain:
            await plain.get(base_url + "/models")
        print("certifi: connected")
    except httpx.ConnectError as error:
        print("certifi: refused", "CERTIFICATE_VERIFY_FAILED" in str(error))
    print("probe:", await probe.list_models(base_url, "sk-office-0123456789"))
    api = ApiProvider("acc", base_url, "sk-office-0123456789", connect_timeout_s=5.0,
                      idle_timeout_s=10.0)
    try:
        result = await api.generate(context())
    finally:
        await api.aclose()
    print("api:", result.text[:19])
    hook = WebhookConfig(kind="json", url_env="HOOK")
    async def lookup(name: str) -> str | None:
        return hook_url
    sender = WebhookSender([hook], lookup=lookup, retry_delays_s=())
    try:
        delivery = await sender.deliver(
            0, hook, Notice(NoticeKind.BATCH_FAILED, "b", 1_764_483_900.0, {"total": 1}))
    finally:
        await sender.close()
    print("webhook:", delivery.ok)

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""

SYSTEM_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")


def _can_bind_mount() -> str | None:
    if os.geteuid() != 0:
        return "a private bind mount over the system bundle needs root (unshare --mount)"
    if shutil.which("unshare") is None or not SYSTEM_BUNDLE.is_file():
        return f"needs util-linux's unshare and the system bundle {SYSTEM_BUNDLE}"
    probe_run = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "true"], capture_output=True, check=False
    )
    if probe_run.returncode != 0:
        return f"this sandbox refuses a mount namespace: {probe_run.stderr.decode()[:200]}"
    return None


async def test_every_client_trusts_the_system_store(
    tls_sim: ApiSimulator, office_pki: OfficePki, tmp_path: Path
) -> None:
    reason = _can_bind_mount()
    if reason:
        pytest.skip(reason)
    bundle = tmp_path / "ca-certificates.crt"  # the system's roots plus the one GPO pushed
    bundle.write_bytes(SYSTEM_BUNDLE.read_bytes() + b"\n" + office_pki.ca_file.read_bytes())
    env = {k: v for k, v in os.environ.items() if not k.startswith("SSL_CERT_")}
    with webhook_receiver(tls=office_pki.server) as receiver:
        command = (
            f"mount --bind {shlex.quote(str(bundle))} {SYSTEM_BUNDLE} && exec "
            f"{shlex.quote(sys.executable)} -c {shlex.quote(_CHILD)} "
            f"{shlex.quote(tls_sim.base_url)} {shlex.quote(receiver.url('json'))}"
        )
        child = await asyncio.create_subprocess_exec(
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            command,
            cwd=Path(__file__).resolve().parents[2],
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(child.communicate(), 120)
        assert child.returncode == 0, err.decode()[-2000:]
        assert out.decode().splitlines() == [
            "certifi: refused True",
            "probe: ['sim-chat', 'sim-reasoner']",
            "api: Answer to: Write a ",
            "webhook: True",
        ]
        assert len(receiver.received) == 1
    assert SYSTEM_BUNDLE.read_bytes() != bundle.read_bytes()  # the machine's store untouched
