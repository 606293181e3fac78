"""Web accounts through a real chat page (Playwright, its own thread: ``service``): the site
adapter as data (``adapter``, ``adapter_answer``; installed files: ``adapter_files``), one
browser per account (``browser``), the page (``page``, ``page_load``, ``new_chat``, the
scripts it runs: ``page_scripts``), a prompt's answer watched to its end (``watch``,
``silence``, ``snapshot``) and rebuilt as Markdown (``markdown``), the provider tying them
together (``provider``), a generation left running (``leftover``), the site check
(``canary``), a failing step's evidence (``diagnose``), and the self-check of our browsers
(``selfcheck``, ``processes``, ``checkup``)."""
