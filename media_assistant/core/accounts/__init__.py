"""Accounts at work: the web lane's pacer (how often one web account may send a prompt, with
its state kept in memory and in the store) and the API lane's gate per account (concurrency
slots and rpm/tpm buckets). The account rows themselves are the store's
(``core/store/accounts.py``). May import ``core.model``, ``files``, ``rules``, ``config``,
``store`` and ``disk``."""
