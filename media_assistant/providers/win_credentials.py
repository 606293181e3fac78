"""Windows' Credential Manager, read directly for what ``keyring`` cannot do: list entries.

``keyring`` (the library every secret goes through) can store, read and delete an entry by
name, but not enumerate. Uninstalling with "delete my data" must remove every entry of the
app's services, also those of accounts removed from the config long ago, so on Windows the
entries are listed with ``CredEnumerateW`` (advapi32, through ctypes: pywin32 would be a second
copy of what keyring already ships as pywin32-ctypes) and deleted with ``CredDeleteW``. keyring's
Windows backend names an entry by its service, or ``user@service`` when a service holds more
than one: both forms are matched. Never runs elsewhere; type-checked with
``mypy --platform win32``; not run on a Windows PC here (docs/PACKAGING.md).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

CRED_TYPE_GENERIC = 1


def our_targets(target_names: Iterable[str], services: Iterable[str]) -> list[str]:
    """The entries among ``target_names`` that belong to one of ``services`` (keyring's
    names: ``service`` or ``user@service``), sorted."""
    wanted = set(services)
    return sorted(
        name for name in set(target_names) if name in wanted or name.rpartition("@")[2] in wanted
    )


if sys.platform == "win32":
    import ctypes
    from ctypes import wintypes

    class _CredentialW(ctypes.Structure):
        _fields_ = [  # noqa: RUF012 - ctypes' own declaration style
            ("Flags", wintypes.DWORD),
            ("Type", wintypes.DWORD),
            ("TargetName", wintypes.LPWSTR),
            ("Comment", wintypes.LPWSTR),
            ("LastWritten", wintypes.FILETIME),
            ("CredentialBlobSize", wintypes.DWORD),
            ("CredentialBlob", ctypes.c_void_p),
            ("Persist", wintypes.DWORD),
            ("AttributeCount", wintypes.DWORD),
            ("Attributes", ctypes.c_void_p),
            ("TargetAlias", wintypes.LPWSTR),
            ("UserName", wintypes.LPWSTR),
        ]

    def _advapi() -> ctypes.WinDLL:
        return ctypes.WinDLL("advapi32", use_last_error=True)

    def generic_targets() -> list[str]:
        """Every generic credential's target name of this Windows user."""
        advapi = _advapi()
        count = wintypes.DWORD()
        creds = ctypes.POINTER(ctypes.POINTER(_CredentialW))()
        if not advapi.CredEnumerateW(None, 0, ctypes.byref(count), ctypes.byref(creds)):
            return []  # ERROR_NOT_FOUND: none at all
        try:
            return [
                str(creds[i].contents.TargetName)
                for i in range(count.value)
                if creds[i].contents.Type == CRED_TYPE_GENERIC and creds[i].contents.TargetName
            ]
        finally:
            advapi.CredFree(creds)

    def delete_target(target: str) -> bool:
        return bool(_advapi().CredDeleteW(target, CRED_TYPE_GENERIC, 0))

else:

    def generic_targets() -> list[str]:
        return []  # elsewhere the keyring is asked entry by entry (commands/forget.py)

    def delete_target(target: str) -> bool:
        return False
