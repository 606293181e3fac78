"""TLS trust for every HTTPS request the app makes (API accounts, model probes, webhooks).

Offices that inspect TLS push their own root certificate to every PC through Group Policy: Edge
and Chrome trust it because it is in the operating system's store, while certifi (httpx's
default) knows only Mozilla's list, so every request would fail with
CERTIFICATE_VERIFY_FAILED. ``truststore`` (the library pip itself uses for the same reason)
verifies through the platform's own machinery: the Windows certificate store
(CertGetCertificateChain), the macOS keychain (Security.framework) and, on Linux, OpenSSL's
system bundle (``SSL_CERT_FILE``/``SSL_CERT_DIR`` honoured). It is pure Python, so the bundle
gains no native library. Hand-exporting the Windows store into a PEM file would miss
certificates added later and intermediate fetching, which the OS does and we should not copy.
"""

from __future__ import annotations

import ssl

import truststore


def client_ssl_context() -> ssl.SSLContext:
    """A client context that trusts what the operating system trusts (hostname checked)."""
    return truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
