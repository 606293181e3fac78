<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>AccountEditor</name>
    <message>
        <source>Add a web account</source>
        <translation>Add a web account</translation>
    </message>
    <message>
        <source>Add an API account</source>
        <translation>Add an API account</translation>
    </message>
    <message>
        <source>Account %1</source>
        <translation>Account %1</translation>
    </message>
    <message>
        <source>e.g. deepseek-1 (letters, digits, - _ .)</source>
        <translation>e.g. deepseek-1 (letters, digits, - _ .)</translation>
    </message>
    <message>
        <source>Name (ID):</source>
        <translation>Name (ID):</translation>
    </message>
    <message>
        <source>another model name</source>
        <translation>another model name</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>Add</translation>
    </message>
    <message>
        <source>Fetch the model list</source>
        <translation>Fetch the model list</translation>
    </message>
    <message>
        <source>Ask the endpoint which models it offers</source>
        <translation>Ask the endpoint which models it offers</translation>
    </message>
    <message>
        <source>Models:</source>
        <translation>Models:</translation>
    </message>
    <message>
        <source>Test connection</source>
        <translation>Test connection</translation>
    </message>
    <message>
        <source>Save and log in</source>
        <translation>Save and log in</translation>
    </message>
    <message>
        <source>Save, then open this account&apos;s browser profile to sign in</source>
        <translation>Save, then open this account&apos;s browser profile to sign in</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>Save</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <source>From an adapter file…</source>
        <translation>From an adapter file…</translation>
    </message>
    <message>
        <source>Chat site:</source>
        <translation>Chat site:</translation>
    </message>
    <message>
        <source>the site&apos;s own address (leave empty)</source>
        <translation>the site&apos;s own address (leave empty)</translation>
    </message>
    <message>
        <source>Only for a self-hosted chat (your company&apos;s Open WebUI) or a test site</source>
        <translation>Only for a self-hosted chat (your company&apos;s Open WebUI) or a test site</translation>
    </message>
    <message>
        <source>Address:</source>
        <translation>Address:</translation>
    </message>
    <message>
        <source>Base URL:</source>
        <translation>Base URL:</translation>
    </message>
    <message>
        <source>paste the key; it is kept in the system&apos;s keyring</source>
        <translation>paste the key; it is kept in the system&apos;s keyring</translation>
    </message>
    <message>
        <source>leave empty to keep the stored key</source>
        <translation>leave empty to keep the stored key</translation>
    </message>
    <message>
        <source>API key:</source>
        <translation>API key:</translation>
    </message>
    <message>
        <source>optional: an environment variable with the key</source>
        <translation>optional: an environment variable with the key</translation>
    </message>
    <message>
        <source>Key variable:</source>
        <translation>Key variable:</translation>
    </message>
    <message>
        <source>Requests in flight at once (1..5)</source>
        <translation>Requests in flight at once (1..5)</translation>
    </message>
    <message>
        <source>Concurrency:</source>
        <translation>Concurrency:</translation>
    </message>
    <message>
        <source>Requests per minute:</source>
        <translation>Requests per minute:</translation>
    </message>
    <message>
        <source>Tokens per minute:</source>
        <translation>Tokens per minute:</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>no limit</translation>
    </message>
    <message>
        <source>Site adapter file</source>
        <translation>Site adapter file</translation>
    </message>
    <message>
        <source>Site adapters (*.toml)</source>
        <translation>Site adapters (*.toml)</translation>
    </message>
    <message>
        <source>Adapter file: %1</source>
        <translation>Adapter file: %1</translation>
    </message>
    <message>
        <source>Enter the name of the variable that holds the key</source>
        <translation>Enter the name of the variable that holds the key</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>Saving…</translation>
    </message>
</context>
<context>
    <name>AccountProblem</name>
    <message>
        <source>A captcha or challenge needs a person: solve it in its browser</source>
        <translation>A captcha or challenge needs a person: solve it in its browser</translation>
    </message>
    <message>
        <source>Its browser profile is in use by another program</source>
        <translation>Its browser profile is in use by another program</translation>
    </message>
    <message>
        <source>Its proxy cannot be reached (or cannot reach the site): it waits and tries again by itself</source>
        <translation>Its proxy cannot be reached (or cannot reach the site): it waits and tries again by itself</translation>
    </message>
    <message>
        <source>Its proxy refused the user name or password (407): store the right proxy password</source>
        <translation>Its proxy refused the user name or password (407): store the right proxy password</translation>
    </message>
    <message>
        <source>Its proxy needs a password: store it in the account&apos;s settings</source>
        <translation>Its proxy needs a password: store it in the account&apos;s settings</translation>
    </message>
    <message>
        <source>It cannot start: check its settings (see the tooltip)</source>
        <translation>It cannot start: check its settings (see the tooltip)</translation>
    </message>
    <message>
        <source>The site&apos;s page changed (see the tooltip): install a fixed adapter file, then Reset</source>
        <translation>The site&apos;s page changed (see the tooltip): install a fixed adapter file, then Reset</translation>
    </message>
    <message>
        <source>Signed out: press Log in and sign in again</source>
        <translation>Signed out: press Log in and sign in again</translation>
    </message>
    <message>
        <source>The API key was rejected: store a valid key</source>
        <translation>The API key was rejected: store a valid key</translation>
    </message>
    <message>
        <source>Needs a look (see the tooltip)</source>
        <translation>Needs a look (see the tooltip)</translation>
    </message>
</context>
<context>
    <name>AccountState</name>
    <message>
        <source>Working</source>
        <translation>Working</translation>
    </message>
    <message>
        <source>Switched off</source>
        <translation>Switched off</translation>
    </message>
    <message>
        <source>Cooling down</source>
        <translation>Cooling down</translation>
    </message>
    <message>
        <source>Needs login</source>
        <translation>Needs login</translation>
    </message>
    <message>
        <source>Key rejected</source>
        <translation>Key rejected</translation>
    </message>
    <message>
        <source>Needs attention</source>
        <translation>Needs attention</translation>
    </message>
</context>
<context>
    <name>AccountsPanel</name>
    <message>
        <source>Account</source>
        <translation>Account</translation>
    </message>
    <message>
        <source>State</source>
        <translation>State</translation>
    </message>
    <message>
        <source>On</source>
        <translation>On</translation>
    </message>
    <message>
        <source>No accounts yet: press “Accounts…” in the toolbar to add one.</source>
        <translation>No accounts yet: press “Accounts…” in the toolbar to add one.</translation>
    </message>
    <message>
        <source>Give this account work</source>
        <translation>Give this account work</translation>
    </message>
    <message>
        <source>Log in</source>
        <translation>Log in</translation>
    </message>
    <message>
        <source>Open this account&apos;s browser profile to sign in</source>
        <translation>Open this account&apos;s browser profile to sign in</translation>
    </message>
    <message>
        <source>×</source>
        <translation>×</translation>
    </message>
    <message>
        <source>Requests in flight (1..5)</source>
        <translation>Requests in flight (1..5)</translation>
    </message>
    <message>
        <source>Through one proxy (%1): %2</source>
        <translation>Through one proxy (%1): %2</translation>
    </message>
    <message>
        <source>%1 are web accounts of %2 behind one proxy: the site may ban them together, whatever their pacing; give each its own proxy</source>
        <translation>%1 are web accounts of %2 behind one proxy: the site may ban them together, whatever their pacing; give each its own proxy</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>Paused</translation>
    </message>
    <message>
        <source>finishing the current task</source>
        <translation>finishing the current task</translation>
    </message>
    <message>
        <source>Repair…</source>
        <translation>Repair…</translation>
    </message>
    <message>
        <source>Find the changed element on its page from what worked before, prove it with a site check, then offer to install it</source>
        <translation>Find the changed element on its page from what worked before, prove it with a site check, then offer to install it</translation>
    </message>
    <message>
        <source>%1 reset: its problem and cool-down are cleared; it starts afresh with its next task</source>
        <translation>%1 reset: its problem and cool-down are cleared; it starts afresh with its next task</translation>
    </message>
    <message>
        <source>pacing: ready</source>
        <translation>pacing: ready</translation>
    </message>
    <message>
        <source>Account %1 paused</source>
        <translation>Account %1 paused</translation>
    </message>
    <message>
        <source>Resume %1</source>
        <translation>Resume %1</translation>
    </message>
    <message>
        <source>Pause %1 (its current task finishes)</source>
        <translation>Pause %1 (its current task finishes)</translation>
    </message>
    <message>
        <source>Reset %1</source>
        <translation>Reset %1</translation>
    </message>
    <message>
        <source>Clear its problem and cool-down and start it afresh (a new key or a fixed adapter is picked up)</source>
        <translation>Clear its problem and cool-down and start it afresh (a new key or a fixed adapter is picked up)</translation>
    </message>
    <message>
        <source>Check site</source>
        <translation>Check site</translation>
    </message>
    <message>
        <source>One short prompt through its chat page, every step reported (after its current task, when its pacing allows)</source>
        <translation>One short prompt through its chat page, every step reported (after its current task, when its pacing allows)</translation>
    </message>
    <message>
        <source>Install adapter file…</source>
        <translation>Install adapter file…</translation>
    </message>
    <message>
        <source>Accounts and models…</source>
        <translation>Accounts and models…</translation>
    </message>
</context>
<context>
    <name>AdapterStep</name>
    <message>
        <source>through the proxy</source>
        <translation>through the proxy</translation>
    </message>
    <message>
        <source>page loaded</source>
        <translation>page loaded</translation>
    </message>
    <message>
        <source>signed in</source>
        <translation>signed in</translation>
    </message>
    <message>
        <source>composer found</source>
        <translation>composer found</translation>
    </message>
    <message>
        <source>text entered and read back</source>
        <translation>text entered and read back</translation>
    </message>
    <message>
        <source>sent</source>
        <translation>sent</translation>
    </message>
    <message>
        <source>generating seen</source>
        <translation>generating seen</translation>
    </message>
    <message>
        <source>done seen</source>
        <translation>done seen</translation>
    </message>
    <message>
        <source>answer read</source>
        <translation>answer read</translation>
    </message>
    <message>
        <source>Markdown rebuilt</source>
        <translation>Markdown rebuilt</translation>
    </message>
    <message>
        <source>new chat</source>
        <translation>new chat</translation>
    </message>
</context>
<context>
    <name>ApiChecks</name>
    <message>
        <source>Waiting for the system keyring (unlock it if it asks)…</source>
        <translation>Waiting for the system keyring (unlock it if it asks)…</translation>
    </message>
    <message>
        <source>no system keyring on this computer</source>
        <translation>no system keyring on this computer</translation>
    </message>
    <message>
        <source>e.g. %1</source>
        <translation>e.g. %1</translation>
    </message>
    <message>
        <source>This computer has no system keyring to keep the key in: put the key in an environment variable and enter its name below.</source>
        <translation>This computer has no system keyring to keep the key in: put the key in an environment variable and enter its name below.</translation>
    </message>
    <message>
        <source>The system keyring did not answer (locked?): unlock it and save again, or put the key in an environment variable and enter its name below.</source>
        <translation>The system keyring did not answer (locked?): unlock it and save again, or put the key in an environment variable and enter its name below.</translation>
    </message>
    <message>
        <source>The system keyring refused the key (locked?): unlock it and save again, or put the key in an environment variable and enter its name below.</source>
        <translation>The system keyring refused the key (locked?): unlock it and save again, or put the key in an environment variable and enter its name below.</translation>
    </message>
    <message>
        <source>Enter the name of the variable that holds the key</source>
        <translation>Enter the name of the variable that holds the key</translation>
    </message>
    <message>
        <source>Paste the API key first</source>
        <translation>Paste the API key first</translation>
    </message>
    <message>
        <source>Enter the base URL first</source>
        <translation>Enter the base URL first</translation>
    </message>
    <message>
        <source>Asking %1 for its models…</source>
        <translation>Asking %1 for its models…</translation>
    </message>
    <message>
        <source>This endpoint does not list its models: type the model name below</source>
        <translation>This endpoint does not list its models: type the model name below</translation>
    </message>
    <message numerus="yes">
        <source>%n model(s) offered: tick the ones this account should serve</source>
        <translation>
            <numerusform>%n model offered: tick the ones this account should serve</numerusform>
            <numerusform>%n models offered: tick the ones this account should serve</numerusform>
        </translation>
    </message>
    <message>
        <source>Choose a model to test with</source>
        <translation>Choose a model to test with</translation>
    </message>
    <message>
        <source>Sending one short request to %1…</source>
        <translation>Sending one short request to %1…</translation>
    </message>
    <message>
        <source>Connected: %1 answered in %2 s: “%3”</source>
        <translation>Connected: %1 answered in %2 s: “%3”</translation>
    </message>
    <message>
        <source>The variable %1 is not set in this app&apos;s environment. Set it for your user, then quit Media Assistant and start it again. Windows: in a Command Prompt type `setx %1 your-key` (or System → Advanced system settings → Environment Variables → New). Linux: add the line `export %1=your-key` to ~/.profile, then log out and in again.</source>
        <translation>The variable %1 is not set in this app&apos;s environment. Set it for your user, then quit Media Assistant and start it again. Windows: in a Command Prompt type `setx %1 your-key` (or System → Advanced system settings → Environment Variables → New). Linux: add the line `export %1=your-key` to ~/.profile, then log out and in again.</translation>
    </message>
</context>
<context>
    <name>App</name>
    <message>
        <source>Media Assistant</source>
        <translation>Media Assistant</translation>
    </message>
    <message>
        <source>The disk is full; the task database cannot be opened:

%1

Free some space, then start Media Assistant again.</source>
        <translation>The disk is full; the task database cannot be opened:

%1

Free some space, then start Media Assistant again.</translation>
    </message>
    <message>
        <source>The team database cannot be reached:

%1

Check the network and the team database&apos;s address, then start Media Assistant again.</source>
        <translation>The team database cannot be reached:

%1

Check the network and the team database&apos;s address, then start Media Assistant again.</translation>
    </message>
    <message>
        <source>The task database is held by another program:

%1</source>
        <translation>The task database is held by another program:

%1</translation>
    </message>
    <message>
        <source>The configuration cannot be used:

%1</source>
        <translation>The configuration cannot be used:

%1</translation>
    </message>
    <message>
        <source>Media Assistant is already running</source>
        <translation>Media Assistant is already running</translation>
    </message>
    <message>
        <source>Another Media Assistant is working on this data folder:
%1

Switch to its window, or close it first.</source>
        <translation>Another Media Assistant is working on this data folder:
%1

Switch to its window, or close it first.</translation>
    </message>
    <message>
        <source>Shutting down: running tasks go back to the queue…</source>
        <translation>Shutting down: running tasks go back to the queue…</translation>
    </message>
    <message>
        <source>The workstation name %1 is in use by Media Assistant on host %2 (this PC is %3): two PCs, or two data folders, cannot share a name. No task runs here.

Give this PC a name of its own on the Team database page of the set-up window, then restart.</source>
        <translation>The workstation name %1 is in use by Media Assistant on host %2 (this PC is %3): two PCs, or two data folders, cannot share a name. No task runs here.

Give this PC a name of its own on the Team database page of the set-up window, then restart.</translation>
    </message>
    <message>
        <source>Something went wrong inside the app; your tasks are safe and work goes on. If it happens again, send a support bundle (Help menu). The details are in the log: %1</source>
        <translation>Something went wrong inside the app; your tasks are safe and work goes on. If it happens again, send a support bundle (Help menu). The details are in the log: %1</translation>
    </message>
</context>
<context>
    <name>BatchFilePage</name>
    <message>
        <source>Drop a CSV, XLSX or JSONL file here</source>
        <translation>Drop a CSV, XLSX or JSONL file here</translation>
    </message>
    <message>
        <source>&amp;Choose file…</source>
        <translation>&amp;Choose file…</translation>
    </message>
    <message>
        <source>C&amp;hoose another…</source>
        <translation>C&amp;hoose another…</translation>
    </message>
    <message>
        <source>Prompt from the file&apos;s prompt column</source>
        <translation>Prompt from the file&apos;s prompt column</translation>
    </message>
    <message>
        <source>Prompt from a template:</source>
        <translation>Prompt from a template:</translation>
    </message>
    <message>
        <source>The prompt with {column} placeholders, e.g. Write an article about {topic}</source>
        <translation>The prompt with {column} placeholders, e.g. Write an article about {topic}</translation>
    </message>
    <message>
        <source>Insert column:</source>
        <translation>Insert column:</translation>
    </message>
    <message>
        <source>What each task is called in the task list (its title)</source>
        <translation>What each task is called in the task list (its title)</translation>
    </message>
    <message>
        <source>Title column:</source>
        <translation>Title column:</translation>
    </message>
    <message>
        <source>Prompts of the first rows:</source>
        <translation>Prompts of the first rows:</translation>
    </message>
    <message>
        <source>Reading…</source>
        <translation>Reading…</translation>
    </message>
    <message numerus="yes">
        <source>%n row(s)</source>
        <translation>
            <numerusform>%n row</numerusform>
            <numerusform>%n rows</numerusform>
        </translation>
    </message>
    <message>
        <source>Insert this column into the template at the cursor</source>
        <translation>Insert this column into the template at the cursor</translation>
    </message>
    <message>
        <source>(none: the prompt&apos;s beginning)</source>
        <translation>(none: the prompt&apos;s beginning)</translation>
    </message>
    <message>
        <source>Prompt from the file&apos;s prompt column (this file has none)</source>
        <translation>Prompt from the file&apos;s prompt column (this file has none)</translation>
    </message>
    <message>
        <source>Choose a file.</source>
        <translation>Choose a file.</translation>
    </message>
    <message>
        <source>Write a template, or insert a column below.</source>
        <translation>Write a template, or insert a column below.</translation>
    </message>
    <message>
        <source>Not a column of this file: %1</source>
        <translation>Not a column of this file: %1</translation>
    </message>
    <message>
        <source>Choose a batch file</source>
        <translation>Choose a batch file</translation>
    </message>
    <message>
        <source>Batch files (%1);;All files (*)</source>
        <translation>Batch files (%1);;All files (*)</translation>
    </message>
</context>
<context>
    <name>BatchList</name>
    <message>
        <source>Pause</source>
        <translation>Pause</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <source>Retry failed…</source>
        <translation>Retry failed…</translation>
    </message>
    <message>
        <source>Priority</source>
        <translation>Priority</translation>
    </message>
    <message>
        <source>Move to the top</source>
        <translation>Move to the top</translation>
    </message>
    <message>
        <source>Move to the bottom</source>
        <translation>Move to the bottom</translation>
    </message>
    <message>
        <source>Set priority…</source>
        <translation>Set priority…</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>Export…</translation>
    </message>
    <message>
        <source>Batches</source>
        <translation>Batches</translation>
    </message>
    <message>
        <source>All batches</source>
        <translation>All batches</translation>
    </message>
    <message>
        <source>All batches · %1</source>
        <translation>All batches · %1</translation>
    </message>
    <message numerus="yes">
        <source>%n failed</source>
        <translation>
            <numerusform>%n failed</numerusform>
            <numerusform>%n failed</numerusform>
        </translation>
    </message>
    <message>
        <source>Choose a batch in the list first</source>
        <translation>Choose a batch in the list first</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Resume</translation>
    </message>
    <message>
        <source>Start this batch&apos;s waiting tasks again</source>
        <translation>Start this batch&apos;s waiting tasks again</translation>
    </message>
    <message>
        <source>Start nothing new from this batch; running tasks finish</source>
        <translation>Start nothing new from this batch; running tasks finish</translation>
    </message>
    <message>
        <source>Every task of this batch has finished</source>
        <translation>Every task of this batch has finished</translation>
    </message>
    <message>
        <source>Cancel every unfinished task of this batch</source>
        <translation>Cancel every unfinished task of this batch</translation>
    </message>
    <message>
        <source>Run this batch&apos;s failed tasks again</source>
        <translation>Run this batch&apos;s failed tasks again</translation>
    </message>
    <message>
        <source>No task of this batch failed</source>
        <translation>No task of this batch failed</translation>
    </message>
    <message>
        <source>Run this batch&apos;s waiting tasks sooner or later</source>
        <translation>Run this batch&apos;s waiting tasks sooner or later</translation>
    </message>
    <message>
        <source>No task of this batch is waiting</source>
        <translation>No task of this batch is waiting</translation>
    </message>
    <message>
        <source>Write this batch&apos;s tasks to a file</source>
        <translation>Write this batch&apos;s tasks to a file</translation>
    </message>
    <message>
        <source>This batch has no tasks</source>
        <translation>This batch has no tasks</translation>
    </message>
</context>
<context>
    <name>BatchListModel</name>
    <message>
        <source>Batch</source>
        <translation>Batch</translation>
    </message>
    <message>
        <source>Source file</source>
        <translation>Source file</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>Created</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>Progress</translation>
    </message>
    <message>
        <source>ETA</source>
        <translation>ETA</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Failed</translation>
    </message>
    <message>
        <source>Share</source>
        <translation>Share</translation>
    </message>
    <message>
        <source>All batches</source>
        <translation>All batches</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 of %2</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>Done</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>Paused</translation>
    </message>
    <message>
        <source>Pausing after the current task</source>
        <translation>Pausing after the current task</translation>
    </message>
    <message>
        <source>After %1 + %2</source>
        <comment>a start time of day + how long it takes</comment>
        <translation>After %1 + %2</translation>
    </message>
    <message>
        <source>Scheduled %1</source>
        <translation>Scheduled %1</translation>
    </message>
    <message>
        <source>%1 (about %2)</source>
        <translation>%1 (about %2)</translation>
    </message>
    <message>
        <source>No account can take it now</source>
        <translation>No account can take it now</translation>
    </message>
    <message>
        <source>After the first result</source>
        <translation>After the first result</translation>
    </message>
    <message>
        <source>Batch id: %1</source>
        <translation>Batch id: %1</translation>
    </message>
    <message>
        <source>Its part of the team&apos;s accounts while every unfinished batch has work waiting (urgent, normal and low work by their weights, then each operator equally, then each batch by its share). The ETA counts with it.</source>
        <translation>Its part of the team&apos;s accounts while every unfinished batch has work waiting (urgent, normal and low work by their weights, then each operator equally, then each batch by its share). The ETA counts with it.</translation>
    </message>
    <message>
        <source>%1 running · %2 waiting · %3 done · %4 failed</source>
        <translation>%1 running · %2 waiting · %3 done · %4 failed</translation>
    </message>
</context>
<context>
    <name>BatchOptionsForm</name>
    <message>
        <source>No models are configured</source>
        <translation>No models are configured</translation>
    </message>
    <message>
        <source>Above 0 is urgent, 0 normal, below 0 low. While all three have work waiting they share the accounts by the weights in [scheduling] (70/25/5 by default); a class alone gets everything.</source>
        <translation>Above 0 is urgent, 0 normal, below 0 low. While all three have work waiting they share the accounts by the weights in [scheduling] (70/25/5 by default); a class alone gets everything.</translation>
    </message>
    <message>
        <source>above 0: urgent · below 0: low</source>
        <translation>above 0: urgent · below 0: low</translation>
    </message>
    <message>
        <source>The batch&apos;s weight among your batches: 2 gets twice what each of your other batches gets. Your colleagues&apos; batches keep their part.</source>
        <translation>The batch&apos;s weight among your batches: 2 gets twice what each of your other batches gets. Your colleagues&apos; batches keep their part.</translation>
    </message>
    <message>
        <source>1 = as much as each of your other batches</source>
        <translation>1 = as much as each of your other batches</translation>
    </message>
    <message>
        <source>&amp;System prompt (optional)</source>
        <translation>&amp;System prompt (optional)</translation>
    </message>
    <message>
        <source>S&amp;tart at</source>
        <translation>S&amp;tart at</translation>
    </message>
    <message>
        <source>Nothing of the batch starts before this time</source>
        <translation>Nothing of the batch starts before this time</translation>
    </message>
    <message>
        <source>&amp;Only between</source>
        <translation>&amp;Only between</translation>
    </message>
    <message>
        <source>Tasks start only inside these hours each day (e.g. night runs)</source>
        <translation>Tasks start only inside these hours each day (e.g. night runs)</translation>
    </message>
    <message>
        <source>and</source>
        <translation>and</translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation>&amp;Model:</translation>
    </message>
    <message>
        <source>P&amp;riority:</source>
        <translation>P&amp;riority:</translation>
    </message>
    <message>
        <source>S&amp;hare:</source>
        <translation>S&amp;hare:</translation>
    </message>
    <message>
        <source>&amp;Batch id:</source>
        <translation>&amp;Batch id:</translation>
    </message>
    <message>
        <source>Schedule:</source>
        <translation>Schedule:</translation>
    </message>
    <message>
        <source>The active hours start and end at the same time.</source>
        <translation>The active hours start and end at the same time.</translation>
    </message>
    <message>
        <source>The file has a model column: it wins; rows that leave it empty use this one.</source>
        <translation>The file has a model column: it wins; rows that leave it empty use this one.</translation>
    </message>
    <message>
        <source>Taken from the file&apos;s priority column (empty cells count as 0).</source>
        <translation>Taken from the file&apos;s priority column (empty cells count as 0).</translation>
    </message>
    <message>
        <source>Rows with their own system_prompt keep it.</source>
        <translation>Rows with their own system_prompt keep it.</translation>
    </message>
    <message>
        <source>This model is sent only the prompt: no system prompt.</source>
        <translation>This model is sent only the prompt: no system prompt.</translation>
    </message>
    <message>
        <source>Web model: the system prompt is typed into the chat page as text.</source>
        <translation>Web model: the system prompt is typed into the chat page as text.</translation>
    </message>
</context>
<context>
    <name>BrowserDownloadDialog</name>
    <message>
        <source>Downloading a browser</source>
        <translation>Downloading a browser</translation>
    </message>
    <message>
        <source>Starting the download…</source>
        <translation>Starting the download…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <source>Downloading %1
%2% of %3</source>
        <translation>Downloading %1
%2% of %3</translation>
    </message>
    <message>
        <source>No browser for web models</source>
        <translation>No browser for web models</translation>
    </message>
    <message>
        <source>This computer has no Microsoft Edge, Google Chrome or Chromium for the web accounts. Media Assistant can download Chromium for them (about 150 MB, once).

Download it now? API accounts work either way.</source>
        <translation>This computer has no Microsoft Edge, Google Chrome or Chromium for the web accounts. Media Assistant can download Chromium for them (about 150 MB, once).

Download it now? API accounts work either way.</translation>
    </message>
    <message>
        <source>Download Chromium</source>
        <translation>Download Chromium</translation>
    </message>
    <message>
        <source>Not now</source>
        <translation>Not now</translation>
    </message>
    <message>
        <source>The browser download failed</source>
        <translation>The browser download failed</translation>
    </message>
    <message>
        <source>Chromium could not be downloaded. Check the internet connection (or install Microsoft Edge or Google Chrome) and start Media Assistant again.</source>
        <translation>Chromium could not be downloaded. Check the internet connection (or install Microsoft Edge or Google Chrome) and start Media Assistant again.</translation>
    </message>
</context>
<context>
    <name>ConfigProblem</name>
    <message>
        <source>web</source>
        <translation>web</translation>
    </message>
    <message>
        <source>API</source>
        <translation>API</translation>
    </message>
    <message>
        <source>Required</source>
        <translation>Required</translation>
    </message>
    <message>
        <source>Unknown setting</source>
        <translation>Unknown setting</translation>
    </message>
    <message>
        <source>Enter a whole number</source>
        <translation>Enter a whole number</translation>
    </message>
    <message>
        <source>Enter a number</source>
        <translation>Enter a number</translation>
    </message>
    <message>
        <source>Choose yes or no</source>
        <translation>Choose yes or no</translation>
    </message>
    <message>
        <source>Enter text</source>
        <translation>Enter text</translation>
    </message>
    <message>
        <source>Enter a list</source>
        <translation>Enter a list</translation>
    </message>
    <message>
        <source>Use lower-case letters, digits, - and _ only, no spaces</source>
        <translation>Use lower-case letters, digits, - and _ only, no spaces</translation>
    </message>
    <message>
        <source>Must be at least %1</source>
        <translation>Must be at least %1</translation>
    </message>
    <message>
        <source>Must be more than %1</source>
        <translation>Must be more than %1</translation>
    </message>
    <message>
        <source>Must be at most %1</source>
        <translation>Must be at most %1</translation>
    </message>
    <message>
        <source>Must be less than %1</source>
        <translation>Must be less than %1</translation>
    </message>
    <message>
        <source>Choose one of: %1</source>
        <translation>Choose one of: %1</translation>
    </message>
    <message>
        <source>Use letters, digits and - _ . only (no spaces), starting with a letter or digit</source>
        <translation>Use letters, digits and - _ . only (no spaces), starting with a letter or digit</translation>
    </message>
    <message>
        <source>Windows cannot use this name for a folder: not CON, PRN, AUX, NUL, COM1-9 or LPT1-9, and not ending in a dot</source>
        <translation>Windows cannot use this name for a folder: not CON, PRN, AUX, NUL, COM1-9 or LPT1-9, and not ending in a dot</translation>
    </message>
    <message>
        <source>Choose at least one model for this account</source>
        <translation>Choose at least one model for this account</translation>
    </message>
    <message>
        <source>Choose a site, or a site adapter file (not both)</source>
        <translation>Choose a site, or a site adapter file (not both)</translation>
    </message>
    <message>
        <source>The address must start with http:// or https://</source>
        <translation>The address must start with http:// or https://</translation>
    </message>
    <message>
        <source>An API account needs its base URL</source>
        <translation>An API account needs its base URL</translation>
    </message>
    <message>
        <source>Only API accounts have this setting</source>
        <translation>Only API accounts have this setting</translation>
    </message>
    <message>
        <source>Only web accounts have this setting</source>
        <translation>Only web accounts have this setting</translation>
    </message>
    <message>
        <source>This looks like the API key itself. Paste the key into the key field (it goes to the system keyring); here goes only the name of an environment variable that holds it, such as DEEPSEEK_API_KEY</source>
        <translation>This looks like the API key itself. Paste the key into the key field (it goes to the system keyring); here goes only the name of an environment variable that holds it, such as DEEPSEEK_API_KEY</translation>
    </message>
    <message>
        <source>The name of an environment variable: letters, digits and _, not starting with a digit (such as DEEPSEEK_API_KEY)</source>
        <translation>The name of an environment variable: letters, digits and _, not starting with a digit (such as DEEPSEEK_API_KEY)</translation>
    </message>
    <message>
        <source>There is already a model named %1</source>
        <translation>There is already a model named %1</translation>
    </message>
    <message>
        <source>There is already an account named %1</source>
        <translation>There is already an account named %1</translation>
    </message>
    <message>
        <source>%1 and %2 differ only in capital letters: on Windows and macOS they would share one browser profile. Choose another name</source>
        <translation>%1 and %2 differ only in capital letters: on Windows and macOS they would share one browser profile. Choose another name</translation>
    </message>
    <message>
        <source>There is no model named %1</source>
        <translation>There is no model named %1</translation>
    </message>
    <message>
        <source>%1 is a %2 model; this account cannot serve it</source>
        <translation>%1 is a %2 model; this account cannot serve it</translation>
    </message>
    <message>
        <source>No account serves model %1: add it to an account&apos;s models</source>
        <translation>No account serves model %1: add it to an account&apos;s models</translation>
    </message>
    <message>
        <source>A model cannot fall back to itself</source>
        <translation>A model cannot fall back to itself</translation>
    </message>
    <message>
        <source>%1 and %2 would fall back to each other</source>
        <translation>%1 and %2 would fall back to each other</translation>
    </message>
    <message>
        <source>Write the hours as 08:00-23:00 (24-hour clock)</source>
        <translation>Write the hours as 08:00-23:00 (24-hour clock)</translation>
    </message>
    <message>
        <source>24:00 is the latest time</source>
        <translation>24:00 is the latest time</translation>
    </message>
    <message>
        <source>The start and the end are the same time</source>
        <translation>The start and the end are the same time</translation>
    </message>
    <message>
        <source>A task is declared dead only after at least two heartbeats</source>
        <translation>A task is declared dead only after at least two heartbeats</translation>
    </message>
    <message>
        <source>At most %1 characters</source>
        <translation>At most %1 characters</translation>
    </message>
    <message>
        <source>The team database&apos;s address must start with postgresql:// (for example postgresql://ma@db.local:5432/media)</source>
        <translation>The team database&apos;s address must start with postgresql:// (for example postgresql://ma@db.local:5432/media)</translation>
    </message>
    <message>
        <source>The address holds a password: take it out (it is not shown here) and type it in the password field, which keeps it in the system keyring; or use PGPASSWORD or the pgpass file</source>
        <translation>The address holds a password: take it out (it is not shown here) and type it in the password field, which keeps it in the system keyring; or use PGPASSWORD or the pgpass file</translation>
    </message>
    <message>
        <source>A proxy is http://HOST:PORT, https://HOST:PORT or socks5://HOST:PORT (a user name may come first: http://USER@HOST:PORT); empty to go direct</source>
        <translation>A proxy is http://HOST:PORT, https://HOST:PORT or socks5://HOST:PORT (a user name may come first: http://USER@HOST:PORT); empty to go direct</translation>
    </message>
    <message>
        <source>The proxy needs a host and a port, e.g. http://10.0.0.5:3128</source>
        <translation>The proxy needs a host and a port, e.g. http://10.0.0.5:3128</translation>
    </message>
    <message>
        <source>The proxy holds a password: take it out (it is not shown here) and type it in the proxy password field, which keeps it in the system keyring</source>
        <translation>The proxy holds a password: take it out (it is not shown here) and type it in the proxy password field, which keeps it in the system keyring</translation>
    </message>
    <message>
        <source>Name an environment variable here, not the password itself</source>
        <translation>Name an environment variable here, not the password itself</translation>
    </message>
    <message>
        <source>A proxy password needs a user name: http://USER@HOST:PORT</source>
        <translation>A proxy password needs a user name: http://USER@HOST:PORT</translation>
    </message>
    <message>
        <source>Not a host name, IP address or network (10.0.0.0/8): %1</source>
        <translation>Not a host name, IP address or network (10.0.0.0/8): %1</translation>
    </message>
    <message>
        <source>The browser cannot sign in to a SOCKS5 proxy with a user name and password: use an HTTP or HTTPS proxy with the password, or a SOCKS5 proxy that needs none</source>
        <translation>The browser cannot sign in to a SOCKS5 proxy with a user name and password: use an HTTP or HTTPS proxy with the password, or a SOCKS5 proxy that needs none</translation>
    </message>
    <message>
        <source>The site adapter cannot be used: %1</source>
        <translation>The site adapter cannot be used: %1</translation>
    </message>
    <message>
        <source>The configuration file was changed outside this window meanwhile; nothing was saved, so that change is kept. Save again to add yours to the file as it is now.</source>
        <translation>The configuration file was changed outside this window meanwhile; nothing was saved, so that change is kept. Save again to add yours to the file as it is now.</translation>
    </message>
</context>
<context>
    <name>DailyUpkeep</name>
    <message>
        <source>The daily check of the task database found damage:

%1

No backup was made over the good ones. Close Media Assistant and restore the latest backup: media-assistant restore FILE</source>
        <translation>The daily check of the task database found damage:

%1

No backup was made over the good ones. Close Media Assistant and restore the latest backup: media-assistant restore FILE</translation>
    </message>
    <message>
        <source>Media Assistant</source>
        <translation>Media Assistant</translation>
    </message>
</context>
<context>
    <name>DemoBanner</name>
    <message>
        <source>Demo mode: simulated web and API models, a demo data folder of its own. Nothing here touches your real accounts.&lt;br&gt;&lt;b&gt;Press “Run the sample batch” to watch 14 tasks run on both lanes.&lt;/b&gt;</source>
        <translation>Demo mode: simulated web and API models, a demo data folder of its own. Nothing here touches your real accounts.&lt;br&gt;&lt;b&gt;Press “Run the sample batch” to watch 14 tasks run on both lanes.&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Run the sample batch</source>
        <translation>Run the sample batch</translation>
    </message>
    <message>
        <source>Demo mode: the sample batch is running. Watch the lane panels and the table; double-click a finished task to read its result.</source>
        <translation>Demo mode: the sample batch is running. Watch the lane panels and the table; double-click a finished task to read its result.</translation>
    </message>
    <message>
        <source>Run it again</source>
        <translation>Run it again</translation>
    </message>
    <message>
        <source>Demo mode: the sample batch has finished. Double-click a task to read its result, export them, or run the batch again.</source>
        <translation>Demo mode: the sample batch has finished. Double-click a task to read its result, export them, or run the batch again.</translation>
    </message>
</context>
<context>
    <name>DiskFullBanner</name>
    <message>
        <source>&lt;b&gt;Disk full&lt;/b&gt;: %1 free on %2. No new task starts until there is space.</source>
        <translation>&lt;b&gt;Disk full&lt;/b&gt;: %1 free on %2. No new task starts until there is space.</translation>
    </message>
    <message numerus="yes">
        <source>%n answer(s) already received are kept and will be written then.</source>
        <translation>
            <numerusform>%n answer already received is kept and will be written then.</numerusform>
            <numerusform>%n answers already received are kept and will be written then.</numerusform>
        </translation>
    </message>
    <message>
        <source>Free some space: the work goes on by itself.</source>
        <translation>Free some space: the work goes on by itself.</translation>
    </message>
</context>
<context>
    <name>Duration</name>
    <message>
        <source>%1s</source>
        <comment>seconds</comment>
        <translation>%1s</translation>
    </message>
    <message>
        <source>%1m%2s</source>
        <comment>minutes, seconds</comment>
        <translation>%1m%2s</translation>
    </message>
    <message>
        <source>%1h%2m</source>
        <comment>hours, minutes</comment>
        <translation>%1h%2m</translation>
    </message>
</context>
<context>
    <name>ErrorKind</name>
    <message>
        <source>API key rejected</source>
        <translation>API key rejected</translation>
    </message>
    <message>
        <source>Request refused as invalid</source>
        <translation>Request refused as invalid</translation>
    </message>
    <message>
        <source>Prompt too long for the model</source>
        <translation>Prompt too long for the model</translation>
    </message>
    <message>
        <source>Blocked by the content policy</source>
        <translation>Blocked by the content policy</translation>
    </message>
    <message>
        <source>Quota used up</source>
        <translation>Quota used up</translation>
    </message>
    <message>
        <source>Login required</source>
        <translation>Login required</translation>
    </message>
    <message>
        <source>Bad input</source>
        <translation>Bad input</translation>
    </message>
    <message>
        <source>Configuration problem</source>
        <translation>Configuration problem</translation>
    </message>
    <message>
        <source>Browser profile in use by another program</source>
        <translation>Browser profile in use by another program</translation>
    </message>
    <message>
        <source>No enabled account serves this model</source>
        <translation>No enabled account serves this model</translation>
    </message>
    <message>
        <source>Deadline passed while waiting</source>
        <translation>Deadline passed while waiting</translation>
    </message>
    <message>
        <source>Rate limited</source>
        <translation>Rate limited</translation>
    </message>
    <message>
        <source>Site busy</source>
        <translation>Site busy</translation>
    </message>
    <message>
        <source>Captcha to solve</source>
        <translation>Captcha to solve</translation>
    </message>
    <message>
        <source>An earlier answer of this account is still running on the site</source>
        <translation>An earlier answer of this account is still running on the site</translation>
    </message>
    <message>
        <source>The site&apos;s page changed</source>
        <translation>The site&apos;s page changed</translation>
    </message>
    <message>
        <source>Proxy unreachable</source>
        <translation>Proxy unreachable</translation>
    </message>
    <message>
        <source>Proxy refused the password</source>
        <translation>Proxy refused the password</translation>
    </message>
    <message>
        <source>Server error</source>
        <translation>Server error</translation>
    </message>
    <message>
        <source>Network error</source>
        <translation>Network error</translation>
    </message>
    <message>
        <source>Timed out</source>
        <translation>Timed out</translation>
    </message>
    <message>
        <source>Malformed response</source>
        <translation>Malformed response</translation>
    </message>
    <message>
        <source>Two answers overlapped in one chat session</source>
        <translation>Two answers overlapped in one chat session</translation>
    </message>
    <message>
        <source>Browser crashed</source>
        <translation>Browser crashed</translation>
    </message>
    <message>
        <source>Heartbeat lost</source>
        <translation>Heartbeat lost</translation>
    </message>
    <message>
        <source>Answer turned down by the quality gate</source>
        <translation>Answer turned down by the quality gate</translation>
    </message>
    <message>
        <source>Internal error</source>
        <translation>Internal error</translation>
    </message>
    <message>
        <source>Canceled</source>
        <translation>Canceled</translation>
    </message>
</context>
<context>
    <name>EventLogModel</name>
    <message>
        <source>Time</source>
        <translation>Time</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Kind</translation>
    </message>
    <message>
        <source>Attempt</source>
        <translation>Attempt</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>Message</translation>
    </message>
</context>
<context>
    <name>EventLogView</name>
    <message>
        <source>Copy</source>
        <translation>Copy</translation>
    </message>
</context>
<context>
    <name>EventText</name>
    <message>
        <source>attempt %1 of %2 (retry %3)</source>
        <translation>attempt %1 of %2 (retry %3)</translation>
    </message>
    <message>
        <source>attempt %1 of %2</source>
        <translation>attempt %1 of %2</translation>
    </message>
    <message>
        <source>not started yet (retry %1)</source>
        <translation>not started yet (retry %1)</translation>
    </message>
    <message>
        <source>not started yet</source>
        <translation>not started yet</translation>
    </message>
    <message>
        <source>%1 of %2 (retry %3)</source>
        <translation>%1 of %2 (retry %3)</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 of %2</translation>
    </message>
    <message>
        <source>retry %1</source>
        <translation>retry %1</translation>
    </message>
    <message>
        <source>%1/%2 · retry %3</source>
        <translation>%1/%2 · retry %3</translation>
    </message>
    <message>
        <source>back in the queue</source>
        <translation>back in the queue</translation>
    </message>
    <message>
        <source>no attempts left: the task failed</source>
        <translation>no attempts left: the task failed</translation>
    </message>
    <message>
        <source>canceled, as you asked</source>
        <translation>canceled, as you asked</translation>
    </message>
    <message>
        <source>Attempt %1 lost: the app that ran it stopped unexpectedly; %2</source>
        <translation>Attempt %1 lost: the app that ran it stopped unexpectedly; %2</translation>
    </message>
    <message>
        <source>Attempt %1 lost: no heartbeat for %2; %3</source>
        <translation>Attempt %1 lost: no heartbeat for %2; %3</translation>
    </message>
    <message>
        <source>another attempt follows</source>
        <translation>another attempt follows</translation>
    </message>
    <message>
        <source>the task goes to %1</source>
        <translation>the task goes to %1</translation>
    </message>
    <message>
        <source>Answer turned down by the quality gate: %1; %2</source>
        <translation>Answer turned down by the quality gate: %1; %2</translation>
    </message>
    <message>
        <source>Self-check: stopped a leftover browser</source>
        <translation>Self-check: stopped a leftover browser</translation>
    </message>
    <message>
        <source>Self-check: could not stop a leftover browser</source>
        <translation>Self-check: could not stop a leftover browser</translation>
    </message>
    <message>
        <source>Self-check: cleared a stale profile lock</source>
        <translation>Self-check: cleared a stale profile lock</translation>
    </message>
    <message>
        <source>Self-check: the browser profile is held by another program</source>
        <translation>Self-check: the browser profile is held by another program</translation>
    </message>
    <message>
        <source>Self-check: the browser profile is locked by another computer</source>
        <translation>Self-check: the browser profile is locked by another computer</translation>
    </message>
    <message>
        <source>Self-check: see the details</source>
        <translation>Self-check: see the details</translation>
    </message>
    <message>
        <source>Request sent to %1 (with a system prompt)</source>
        <translation>Request sent to %1 (with a system prompt)</translation>
    </message>
    <message>
        <source>Request sent to %1 (system prompt left out for this model)</source>
        <translation>Request sent to %1 (system prompt left out for this model)</translation>
    </message>
    <message>
        <source>Request sent to %1</source>
        <translation>Request sent to %1</translation>
    </message>
    <message>
        <source>Answer received: %1 characters</source>
        <translation>Answer received: %1 characters</translation>
    </message>
    <message>
        <source>; cut at the model&apos;s length limit</source>
        <translation>; cut at the model&apos;s length limit</translation>
    </message>
    <message>
        <source>%1 started on %2</source>
        <translation>%1 started on %2</translation>
    </message>
    <message>
        <source>%1 failed (%2); next attempt in %3</source>
        <translation>%1 failed (%2); next attempt in %3</translation>
    </message>
    <message>
        <source>Submitted in batch %1</source>
        <translation>Submitted in batch %1</translation>
    </message>
    <message>
        <source>Canceled before it started</source>
        <translation>Canceled before it started</translation>
    </message>
    <message>
        <source>Cancel requested: it stops at its next checkpoint</source>
        <translation>Cancel requested: it stops at its next checkpoint</translation>
    </message>
    <message>
        <source>Retry requested with an edited prompt (retry %1)</source>
        <translation>Retry requested with an edited prompt (retry %1)</translation>
    </message>
    <message>
        <source>Retry requested (retry %1)</source>
        <translation>Retry requested (retry %1)</translation>
    </message>
    <message>
        <source>Priority set to %1</source>
        <translation>Priority set to %1</translation>
    </message>
    <message>
        <source>Succeeded: %1 characters in %2</source>
        <translation>Succeeded: %1 characters in %2</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>Failed: %1</translation>
    </message>
    <message>
        <source>Failed: %1 on every attempt (%2 attempts on %3 account(s)); not retried again</source>
        <translation>Failed: %1 on every attempt (%2 attempts on %3 account(s)); not retried again</translation>
    </message>
    <message>
        <source>%1: the account rests %2; the task waits (no attempt used)</source>
        <translation>%1: the account rests %2; the task waits (no attempt used)</translation>
    </message>
    <message>
        <source>Canceled while running, as you asked</source>
        <translation>Canceled while running, as you asked</translation>
    </message>
    <message>
        <source>Back in the queue: the app was closed (no attempt used)</source>
        <translation>Back in the queue: the app was closed (no attempt used)</translation>
    </message>
    <message>
        <source>Back in the queue: the team database could not be reached for %1 (no attempt used)</source>
        <translation>Back in the queue: the team database could not be reached for %1 (no attempt used)</translation>
    </message>
    <message>
        <source>Answer held %1 while the team database was unreachable</source>
        <translation>Answer held %1 while the team database was unreachable</translation>
    </message>
    <message>
        <source>Back in the queue: %1 was switched off as it took the task</source>
        <translation>Back in the queue: %1 was switched off as it took the task</translation>
    </message>
    <message>
        <source>Back in the queue: the lane was stopping</source>
        <translation>Back in the queue: the lane was stopping</translation>
    </message>
    <message>
        <source>An answer this account started %1 ago (task %2) may still be generating on the site: looking before sending</source>
        <translation>An answer this account started %1 ago (task %2) may still be generating on the site: looking before sending</translation>
    </message>
    <message>
        <source>Its conversation is unknown; going on (until it can have ended, a failure does not use an attempt)</source>
        <translation>Its conversation is unknown; going on (until it can have ended, a failure does not use an attempt)</translation>
    </message>
    <message>
        <source>The site adapter cannot tell whether it still runs; going on (until it can have ended, a failure does not use an attempt)</source>
        <translation>The site adapter cannot tell whether it still runs; going on (until it can have ended, a failure does not use an attempt)</translation>
    </message>
    <message>
        <source>It was still generating: stopped it</source>
        <translation>It was still generating: stopped it</translation>
    </message>
    <message>
        <source>It had ended</source>
        <translation>It had ended</translation>
    </message>
    <message>
        <source>Its page shows no conversation; going on</source>
        <translation>Its page shows no conversation; going on</translation>
    </message>
    <message>
        <source>Could not look at its page; going on</source>
        <translation>Could not look at its page; going on</translation>
    </message>
    <message>
        <source>Browser started (process %1)</source>
        <translation>Browser started (process %1)</translation>
    </message>
    <message>
        <source>The new-chat button gave no empty chat within %1: the page was loaded instead (slower; check the site adapter)</source>
        <translation>The new-chat button gave no empty chat within %1: the page was loaded instead (slower; check the site adapter)</translation>
    </message>
    <message>
        <source>Cancel: clicked the page&apos;s stop button</source>
        <translation>Cancel: clicked the page&apos;s stop button</translation>
    </message>
    <message>
        <source>Cancel: the page showed no stop button</source>
        <translation>Cancel: the page showed no stop button</translation>
    </message>
    <message>
        <source>The site kept generating: its browser was closed</source>
        <translation>The site kept generating: its browser was closed</translation>
    </message>
    <message>
        <source>Answer taken without a done marker: site adapter %1 may be outdated</source>
        <translation>Answer taken without a done marker: site adapter %1 may be outdated</translation>
    </message>
    <message>
        <source>The adapter&apos;s Markdown source was empty: the answer was rebuilt from the page</source>
        <translation>The adapter&apos;s Markdown source was empty: the answer was rebuilt from the page</translation>
    </message>
    <message>
        <source>A screenshot and the page at step “%1” were saved for diagnosis (redacted)</source>
        <translation>A screenshot and the page at step “%1” were saved for diagnosis (redacted)</translation>
    </message>
    <message>
        <source>A screenshot and the page were saved for diagnosis</source>
        <translation>A screenshot and the page were saved for diagnosis</translation>
    </message>
    <message>
        <source>Site adapter step “%1” failed (%2 in a row; the second pauses the account)</source>
        <translation>Site adapter step “%1” failed (%2 in a row; the second pauses the account)</translation>
    </message>
    <message>
        <source>The site&apos;s page changed at step “%1”: %2 waits for you; the task waits (no attempt used)</source>
        <translation>The site&apos;s page changed at step “%1”: %2 waits for you; the task waits (no attempt used)</translation>
    </message>
    <message>
        <source>Pacing: %1; the account rests %2</source>
        <translation>Pacing: %1; the account rests %2</translation>
    </message>
    <message>
        <source>Risk guard: %1 risk signals in a row; the account is paused until %2</source>
        <translation>Risk guard: %1 risk signals in a row; the account is paused until %2</translation>
    </message>
</context>
<context>
    <name>ExportDialog</name>
    <message>
        <source>Export tasks</source>
        <translation>Export tasks</translation>
    </message>
    <message numerus="yes">
        <source>The %n task(s) the table shows</source>
        <translation>
            <numerusform>The %n task the table shows</numerusform>
            <numerusform>The %n tasks the table shows</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The %n task(s) in the table</source>
        <translation>
            <numerusform>The %n task in the table</numerusform>
            <numerusform>The %n tasks in the table</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The %n selected task(s)</source>
        <translation>
            <numerusform>The %n selected task</numerusform>
            <numerusform>The %n selected tasks</numerusform>
        </translation>
    </message>
    <message>
        <source>Selected tasks (none selected)</source>
        <translation>Selected tasks (none selected)</translation>
    </message>
    <message>
        <source>Select tasks in the table first</source>
        <translation>Select tasks in the table first</translation>
    </message>
    <message>
        <source>Batch:</source>
        <translation>Batch:</translation>
    </message>
    <message>
        <source>Every task in the store</source>
        <translation>Every task in the store</translation>
    </message>
    <message>
        <source>Excel workbook (.xlsx)</source>
        <translation>Excel workbook (.xlsx)</translation>
    </message>
    <message>
        <source>Word document (.docx), one heading per task</source>
        <translation>Word document (.docx), one heading per task</translation>
    </message>
    <message>
        <source>CSV (.csv)</source>
        <translation>CSV (.csv)</translation>
    </message>
    <message>
        <source>Markdown, one file (.md)</source>
        <translation>Markdown, one file (.md)</translation>
    </message>
    <message>
        <source>Markdown folder, one file per task</source>
        <translation>Markdown folder, one file per task</translation>
    </message>
    <message>
        <source>JSON lines (.jsonl)</source>
        <translation>JSON lines (.jsonl)</translation>
    </message>
    <message>
        <source>Chinese (中文)</source>
        <translation>Chinese (中文)</translation>
    </message>
    <message>
        <source>English (field names)</source>
        <translation>English (field names)</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Browse…</translation>
    </message>
    <message>
        <source>Tasks:</source>
        <translation>Tasks:</translation>
    </message>
    <message>
        <source>Format:</source>
        <translation>Format:</translation>
    </message>
    <message>
        <source>Column names:</source>
        <translation>Column names:</translation>
    </message>
    <message>
        <source>Save to:</source>
        <translation>Save to:</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>Export</translation>
    </message>
    <message>
        <source>Folder to create the export in</source>
        <translation>Folder to create the export in</translation>
    </message>
</context>
<context>
    <name>FirstStartDialog</name>
    <message>
        <source>Media Assistant</source>
        <translation>Media Assistant</translation>
    </message>
    <message>
        <source>Welcome to Media Assistant</source>
        <translation>Welcome to Media Assistant</translation>
    </message>
    <message>
        <source>No accounts are set up yet.&lt;br&gt;&lt;br&gt;&lt;b&gt;Try the demo&lt;/b&gt; to see the app at work first: a simulated chat site and API, with sample tasks. Nothing to set up, and nothing leaves this computer.&lt;br&gt;&lt;br&gt;&lt;b&gt;Set up accounts&lt;/b&gt; to add the chat sites you sign in to and the API keys your team uses, in a few clicks.</source>
        <translation>No accounts are set up yet.&lt;br&gt;&lt;br&gt;&lt;b&gt;Try the demo&lt;/b&gt; to see the app at work first: a simulated chat site and API, with sample tasks. Nothing to set up, and nothing leaves this computer.&lt;br&gt;&lt;br&gt;&lt;b&gt;Set up accounts&lt;/b&gt; to add the chat sites you sign in to and the API keys your team uses, in a few clicks.</translation>
    </message>
    <message>
        <source>Your data folder: %1</source>
        <translation>Your data folder: %1</translation>
    </message>
    <message>
        <source>Try the demo</source>
        <translation>Try the demo</translation>
    </message>
    <message>
        <source>Set up accounts</source>
        <translation>Set up accounts</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>Quit</translation>
    </message>
</context>
<context>
    <name>HelpActions</name>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Help</translation>
    </message>
    <message>
        <source>Create support bundle…</source>
        <translation>Create support bundle…</translation>
    </message>
    <message>
        <source>About Media Assistant</source>
        <translation>About Media Assistant</translation>
    </message>
    <message>
        <source>Create support bundle</source>
        <translation>Create support bundle</translation>
    </message>
    <message>
        <source>Zip archive (*.zip)</source>
        <translation>Zip archive (*.zip)</translation>
    </message>
    <message>
        <source>Creating the support bundle…</source>
        <translation>Creating the support bundle…</translation>
    </message>
    <message>
        <source>Support bundle failed</source>
        <translation>Support bundle failed</translation>
    </message>
    <message>
        <source>Support bundle written to %1. Secrets (API keys, webhook addresses) were removed; send it to whoever helps you.</source>
        <translation>Support bundle written to %1. Secrets (API keys, webhook addresses) were removed; send it to whoever helps you.</translation>
    </message>
    <message>
        <source>Support bundle created</source>
        <translation>Support bundle created</translation>
    </message>
    <message>
        <source>Media Assistant %1</source>
        <translation>Media Assistant %1</translation>
    </message>
</context>
<context>
    <name>JobRunner</name>
    <message>
        <source>Cancel</source>
        <translation>Cancel</translation>
    </message>
</context>
<context>
    <name>Labels</name>
    <message>
        <source>%1: %2</source>
        <comment>error kind: the site&apos;s error message</comment>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Near the rate limit</source>
        <translation>Near the rate limit</translation>
    </message>
    <message>
        <source>%1, %2 left</source>
        <comment>cool-down reason, time left</comment>
        <translation>%1, %2 left</translation>
    </message>
</context>
<context>
    <name>Lane</name>
    <message>
        <source>Web</source>
        <translation>Web</translation>
    </message>
    <message>
        <source>API</source>
        <translation>API</translation>
    </message>
    <message>
        <source>Web lane</source>
        <translation>Web lane</translation>
    </message>
    <message>
        <source>API lane</source>
        <translation>API lane</translation>
    </message>
</context>
<context>
    <name>LanePanel</name>
    <message>
        <source>%1 of %2 done</source>
        <translation>%1 of %2 done</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <comment>accounts · free slots</comment>
        <translation>%1 · %2</translation>
    </message>
    <message numerus="yes">
        <source>%n account(s)</source>
        <translation>
            <numerusform>%n account</numerusform>
            <numerusform>%n accounts</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n slot(s) free</source>
        <translation>
            <numerusform>%n slot free</numerusform>
            <numerusform>%n slots free</numerusform>
        </translation>
    </message>
    <message>
        <source>Pausing after the current task</source>
        <translation>Pausing after the current task</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>Paused</translation>
    </message>
    <message>
        <source>%1/min</source>
        <translation>%1/min</translation>
    </message>
    <message>
        <source>Idle</source>
        <translation>Idle</translation>
    </message>
    <message>
        <source>Scheduled %1</source>
        <translation>Scheduled %1</translation>
    </message>
    <message>
        <source>This batch: ETA %1 (about %2)</source>
        <translation>This batch: ETA %1 (about %2)</translation>
    </message>
    <message>
        <source>After %1 + %2</source>
        <comment>a start time of day + how long it takes</comment>
        <translation>After %1 + %2</translation>
    </message>
    <message numerus="yes">
        <source>Paused: %n task(s) wait</source>
        <translation>
            <numerusform>Paused: %n task waits</numerusform>
            <numerusform>Paused: %n tasks wait</numerusform>
        </translation>
    </message>
    <message>
        <source>ETA %1 (about %2)</source>
        <translation>ETA %1 (about %2)</translation>
    </message>
    <message>
        <source>ETA: no account can take these tasks now</source>
        <translation>ETA: no account can take these tasks now</translation>
    </message>
    <message>
        <source>%1: served on %2, which cannot take it now</source>
        <translation>%1: served on %2, which cannot take it now</translation>
    </message>
    <message>
        <source>%1: served on %2</source>
        <translation>%1: served on %2</translation>
    </message>
    <message>
        <source>ETA after the first task finishes</source>
        <translation>ETA after the first task finishes</translation>
    </message>
    <message>
        <source>Resume this lane</source>
        <translation>Resume this lane</translation>
    </message>
    <message>
        <source>Pause this lane: running tasks finish</source>
        <translation>Pause this lane: running tasks finish</translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) without a heartbeat for 90 s</source>
        <translation>
            <numerusform>%n task without a heartbeat for 90 s</numerusform>
            <numerusform>%n tasks without a heartbeat for 90 s</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) without a heartbeat for 30 s</source>
        <translation>
            <numerusform>%n task without a heartbeat for 30 s</numerusform>
            <numerusform>%n tasks without a heartbeat for 30 s</numerusform>
        </translation>
    </message>
    <message>
        <source>no available account for: %1</source>
        <translation>no available account for: %1</translation>
    </message>
</context>
<context>
    <name>LogPanel</name>
    <message>
        <source>The full report is in the app&apos;s log file (Help → Create support bundle…).</source>
        <translation>The full report is in the app&apos;s log file (Help → Create support bundle…).</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Error</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>Warning</translation>
    </message>
    <message>
        <source>Info</source>
        <translation>Info</translation>
    </message>
    <message>
        <source>All lines</source>
        <translation>All lines</translation>
    </message>
    <message>
        <source>Info and up</source>
        <translation>Info and up</translation>
    </message>
    <message>
        <source>Warnings and errors</source>
        <translation>Warnings and errors</translation>
    </message>
    <message>
        <source>Errors only</source>
        <translation>Errors only</translation>
    </message>
    <message>
        <source>Filter log…</source>
        <translation>Filter log…</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Media Assistant</source>
        <translation>Media Assistant</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>Timeline</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>Log</translation>
    </message>
    <message>
        <source>Notifications</source>
        <translation>Notifications</translation>
    </message>
    <message>
        <source>Last 5 minutes</source>
        <translation>Last 5 minutes</translation>
    </message>
    <message>
        <source>Last 15 minutes</source>
        <translation>Last 15 minutes</translation>
    </message>
    <message>
        <source>Last hour</source>
        <translation>Last hour</translation>
    </message>
    <message>
        <source>Last 4 hours</source>
        <translation>Last 4 hours</translation>
    </message>
    <message>
        <source>Span:</source>
        <translation>Span:</translation>
    </message>
    <message>
        <source>Actions</source>
        <translation>Actions</translation>
    </message>
    <message>
        <source>New batch…</source>
        <translation>New batch…</translation>
    </message>
    <message>
        <source>Accounts…</source>
        <translation>Accounts…</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>Settings…</translation>
    </message>
    <message>
        <source>Metrics</source>
        <translation>Metrics</translation>
    </message>
    <message>
        <source>%1: %2/%3 done — Media Assistant</source>
        <comment>batch: done/total</comment>
        <translation>%1: %2/%3 done — Media Assistant</translation>
    </message>
    <message>
        <source>%1/%2 done — Media Assistant</source>
        <translation>%1/%2 done — Media Assistant</translation>
    </message>
    <message>
        <source>Batch %1 is not in this queue any more</source>
        <translation>Batch %1 is not in this queue any more</translation>
    </message>
    <message>
        <source>Account %1 is not set up in this queue any more</source>
        <translation>Account %1 is not set up in this queue any more</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <comment>notice title: text</comment>
        <translation>%1: %2</translation>
    </message>
    <message numerus="yes">
        <source>; %n already present, not added again</source>
        <translation>
            <numerusform>; %n already present, not added again</numerusform>
            <numerusform>; %n already present, not added again</numerusform>
        </translation>
    </message>
    <message>
        <source>Batch %1 submitted</source>
        <translation>Batch %1 submitted</translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) added</source>
        <translation>
            <numerusform>%n task added</numerusform>
            <numerusform>%n tasks added</numerusform>
        </translation>
    </message>
    <message>
        <source>Notifications (%1)</source>
        <translation>Notifications (%1)</translation>
    </message>
    <message>
        <source>Sign in to %1 in the browser window, then close it</source>
        <translation>Sign in to %1 in the browser window, then close it</translation>
    </message>
    <message>
        <source>Self-check: all clear</source>
        <translation>Self-check: all clear</translation>
    </message>
    <message numerus="yes">
        <source>Self-check: %n finding(s) — see the log</source>
        <translation>
            <numerusform>Self-check: %n finding — see the log</numerusform>
            <numerusform>Self-check: %n findings — see the log</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MetricsWindow</name>
    <message>
        <source>Metrics</source>
        <translation>Metrics</translation>
    </message>
    <message>
        <source>Last 15 minutes</source>
        <translation>Last 15 minutes</translation>
    </message>
    <message>
        <source>Last hour</source>
        <translation>Last hour</translation>
    </message>
    <message>
        <source>Today</source>
        <translation>Today</translation>
    </message>
    <message>
        <source>All workstations of the team</source>
        <translation>All workstations of the team</translation>
    </message>
    <message>
        <source>This workstation</source>
        <translation>This workstation</translation>
    </message>
    <message>
        <source>Times: p50 / p90 / p99 in seconds</source>
        <translation>Times: p50 / p90 / p99 in seconds</translation>
    </message>
    <message>
        <source>Lane</source>
        <translation>Lane</translation>
    </message>
    <message>
        <source>Ended</source>
        <translation>Ended</translation>
    </message>
    <message>
        <source>Per minute</source>
        <translation>Per minute</translation>
    </message>
    <message>
        <source>Wait (s)</source>
        <translation>Wait (s)</translation>
    </message>
    <message>
        <source>Generation (s)</source>
        <translation>Generation (s)</translation>
    </message>
    <message>
        <source>End to end (s)</source>
        <translation>End to end (s)</translation>
    </message>
    <message>
        <source>Timeouts</source>
        <translation>Timeouts</translation>
    </message>
    <message>
        <source>Failures</source>
        <translation>Failures</translation>
    </message>
    <message>
        <source>Deferrals</source>
        <translation>Deferrals</translation>
    </message>
    <message>
        <source>Backlog</source>
        <translation>Backlog</translation>
    </message>
    <message>
        <source>Account</source>
        <translation>Account</translation>
    </message>
    <message>
        <source>Busy</source>
        <translation>Busy</translation>
    </message>
    <message>
        <source>Requests/min</source>
        <translation>Requests/min</translation>
    </message>
    <message>
        <source>Tokens/min</source>
        <translation>Tokens/min</translation>
    </message>
    <message>
        <source>In flight</source>
        <translation>In flight</translation>
    </message>
    <message>
        <source>Finished per minute, today</source>
        <translation>Finished per minute, today</translation>
    </message>
    <message>
        <source>tasks/min</source>
        <translation>tasks/min</translation>
    </message>
    <message>
        <source>p90 end to end, today</source>
        <translation>p90 end to end, today</translation>
    </message>
    <message>
        <source>minutes</source>
        <translation>minutes</translation>
    </message>
    <message>
        <source>Busy share per account</source>
        <translation>Busy share per account</translation>
    </message>
    <message>
        <source>%</source>
        <translation>%</translation>
    </message>
    <message>
        <source>API quota use, today</source>
        <translation>API quota use, today</translation>
    </message>
    <message>
        <source>% of limit</source>
        <translation>% of limit</translation>
    </message>
    <message>
        <source>Span:</source>
        <translation>Span:</translation>
    </message>
    <message>
        <source>Web</source>
        <translation>Web</translation>
    </message>
    <message>
        <source>API</source>
        <translation>API</translation>
    </message>
    <message>
        <source>Updated %1</source>
        <translation>Updated %1</translation>
    </message>
    <message>
        <source>No alarm</source>
        <translation>No alarm</translation>
    </message>
    <message>
        <source>timeouts</source>
        <translation>timeouts</translation>
    </message>
    <message>
        <source>failures and deferrals</source>
        <translation>failures and deferrals</translation>
    </message>
    <message>
        <source>quota use</source>
        <translation>quota use</translation>
    </message>
    <message>
        <source>backlog growing</source>
        <translation>backlog growing</translation>
    </message>
    <message>
        <source>p90 end to end</source>
        <translation>p90 end to end</translation>
    </message>
    <message>
        <source>Alarms: %1</source>
        <translation>Alarms: %1</translation>
    </message>
    <message>
        <source>limit</source>
        <translation>limit</translation>
    </message>
    <message>
        <source>alarm</source>
        <translation>alarm</translation>
    </message>
</context>
<context>
    <name>ModelEditor</name>
    <message>
        <source>Model %1</source>
        <translation>Model %1</translation>
    </message>
    <message>
        <source>Kind:</source>
        <translation>Kind:</translation>
    </message>
    <message>
        <source>Served by:</source>
        <translation>Served by:</translation>
    </message>
    <message>
        <source>Send only the user&apos;s text (reasoning models)</source>
        <translation>Send only the user&apos;s text (reasoning models)</translation>
    </message>
    <message>
        <source>No system prompt or preset text is sent: reasoning models answer better</source>
        <translation>No system prompt or preset text is sent: reasoning models answer better</translation>
    </message>
    <message>
        <source>the same as the name</source>
        <translation>the same as the name</translation>
    </message>
    <message>
        <source>The model&apos;s name at the provider, when it differs from the name used here</source>
        <translation>The model&apos;s name at the provider, when it differs from the name used here</translation>
    </message>
    <message>
        <source>Name at the provider:</source>
        <translation>Name at the provider:</translation>
    </message>
    <message>
        <source>none</source>
        <translation>none</translation>
    </message>
    <message>
        <source>Default system prompt:</source>
        <translation>Default system prompt:</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>Save</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancel</translation>
    </message>
</context>
<context>
    <name>NewBatchDialog</name>
    <message>
        <source>New batch</source>
        <translation>New batch</translation>
    </message>
    <message>
        <source>&amp;Paste prompts</source>
        <translation>&amp;Paste prompts</translation>
    </message>
    <message>
        <source>&amp;Import file</source>
        <translation>&amp;Import file</translation>
    </message>
    <message>
        <source>One prompt per line. Empty lines are skipped.</source>
        <translation>One prompt per line. Empty lines are skipped.</translation>
    </message>
    <message numerus="yes">
        <source>%n prompt(s)</source>
        <translation>
            <numerusform>%n prompt</numerusform>
            <numerusform>%n prompts</numerusform>
        </translation>
    </message>
    <message>
        <source>Reading the file…</source>
        <translation>Reading the file…</translation>
    </message>
    <message>
        <source>Submit</source>
        <translation>Submit</translation>
    </message>
    <message>
        <source>Submit the batch (Ctrl+Enter)</source>
        <translation>Submit the batch (Ctrl+Enter)</translation>
    </message>
    <message>
        <source>No models are configured.</source>
        <translation>No models are configured.</translation>
    </message>
    <message>
        <source>Enter a batch id.</source>
        <translation>Enter a batch id.</translation>
    </message>
    <message>
        <source>Paste at least one prompt.</source>
        <translation>Paste at least one prompt.</translation>
    </message>
    <message>
        <source>This file cannot be used:</source>
        <translation>This file cannot be used:</translation>
    </message>
    <message>
        <source>Nothing was submitted. Fix these problems and try again:</source>
        <translation>Nothing was submitted. Fix these problems and try again:</translation>
    </message>
</context>
<context>
    <name>NoticeWords</name>
    <message>
        <source>Batch %1 finished</source>
        <translation>Batch %1 finished</translation>
    </message>
    <message>
        <source>Batch %1 ended with failures</source>
        <translation>Batch %1 ended with failures</translation>
    </message>
    <message>
        <source>Account %1: the site&apos;s page changed</source>
        <translation>Account %1: the site&apos;s page changed</translation>
    </message>
    <message>
        <source>Account %1 needs you</source>
        <translation>Account %1 needs you</translation>
    </message>
    <message>
        <source>Task %1 failed the same way every time</source>
        <translation>Task %1 failed the same way every time</translation>
    </message>
    <message>
        <source>Disk almost full</source>
        <translation>Disk almost full</translation>
    </message>
    <message>
        <source>web</source>
        <translation>web</translation>
    </message>
    <message>
        <source>API</source>
        <translation>API</translation>
    </message>
    <message>
        <source>Too many timeouts on the %1 lane</source>
        <translation>Too many timeouts on the %1 lane</translation>
    </message>
    <message>
        <source>Too many failures and deferrals on the %1 lane</source>
        <translation>Too many failures and deferrals on the %1 lane</translation>
    </message>
    <message>
        <source>API account %1 is near its quota</source>
        <translation>API account %1 is near its quota</translation>
    </message>
    <message>
        <source>The %1 lane&apos;s backlog keeps growing</source>
        <translation>The %1 lane&apos;s backlog keeps growing</translation>
    </message>
    <message>
        <source>Tasks take too long on the %1 lane</source>
        <translation>Tasks take too long on the %1 lane</translation>
    </message>
    <message>
        <source>Alarm: %1</source>
        <translation>Alarm: %1</translation>
    </message>
    <message>
        <source>Cleared: %1</source>
        <translation>Cleared: %1</translation>
    </message>
    <message>
        <source>Back in bounds</source>
        <translation>Back in bounds</translation>
    </message>
    <message>
        <source>From %1 to %2 tasks in %3 min while an account of the lane sat idle</source>
        <translation>From %1 to %2 tasks in %3 min while an account of the lane sat idle</translation>
    </message>
    <message>
        <source>p90 end to end %1 s in the last %3 min (bound %2 s)</source>
        <translation>p90 end to end %1 s in the last %3 min (bound %2 s)</translation>
    </message>
    <message>
        <source>Timeouts: %1 of the attempts in the last %3 min (threshold %2)</source>
        <translation>Timeouts: %1 of the attempts in the last %3 min (threshold %2)</translation>
    </message>
    <message>
        <source>Failures and deferrals: %1 of the attempts in the last %3 min (threshold %2)</source>
        <translation>Failures and deferrals: %1 of the attempts in the last %3 min (threshold %2)</translation>
    </message>
    <message>
        <source>At least %1 of its per-minute limit for %3 min (threshold %2)</source>
        <translation>At least %1 of its per-minute limit for %3 min (threshold %2)</translation>
    </message>
    <message>
        <source>%1 (threshold %2)</source>
        <translation>%1 (threshold %2)</translation>
    </message>
    <message numerus="yes">
        <source>%n task(s): %1 succeeded, %2 failed, %3 canceled</source>
        <translation>
            <numerusform>%n task: %1 succeeded, %2 failed, %3 canceled</numerusform>
            <numerusform>%n tasks: %1 succeeded, %2 failed, %3 canceled</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 on %n account(s); not retried again: check its prompt or the site</source>
        <translation>
            <numerusform>%1 on %n account; not retried again: check its prompt or the site</numerusform>
            <numerusform>%1 on %n accounts; not retried again: check its prompt or the site</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 MB free on the disk of %2</source>
        <translation>%1 MB free on the disk of %2</translation>
    </message>
</context>
<context>
    <name>NotificationList</name>
    <message>
        <source>No notifications. Finished batches and accounts that need you show here.</source>
        <translation>No notifications. Finished batches and accounts that need you show here.</translation>
    </message>
    <message>
        <source>Mark all read</source>
        <translation>Mark all read</translation>
    </message>
    <message>
        <source>Clear read</source>
        <translation>Clear read</translation>
    </message>
</context>
<context>
    <name>Pacing</name>
    <message>
        <source>%1 min</source>
        <comment>minutes</comment>
        <translation>%1 min</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <comment>hours and minutes</comment>
        <translation>%1 h %2 min</translation>
    </message>
    <message>
        <source>%1 s</source>
        <comment>seconds</comment>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1 h</source>
        <comment>hours</comment>
        <translation>%1 h</translation>
    </message>
    <message>
        <source>next task in %1</source>
        <translation>next task in %1</translation>
    </message>
    <message>
        <source>window full, next task in %1</source>
        <translation>window full, next task in %1</translation>
    </message>
    <message>
        <source>cooling down: %1, %2</source>
        <comment>risk kind, time left</comment>
        <translation>cooling down: %1, %2</translation>
    </message>
    <message>
        <source>paused until %1 (risk signals in a row)</source>
        <translation>paused until %1 (risk signals in a row)</translation>
    </message>
    <message>
        <source>paused until %1 (active hours %2)</source>
        <translation>paused until %1 (active hours %2)</translation>
    </message>
    <message>
        <source>daily cap reached, paused until %1</source>
        <translation>daily cap reached, paused until %1</translation>
    </message>
    <message>
        <source>%1 of %2 in %3</source>
        <comment>prompts used of the limit, in the window</comment>
        <translation>%1 of %2 in %3</translation>
    </message>
    <message>
        <source>%1 of %2 today</source>
        <comment>prompts used of the daily cap</comment>
        <translation>%1 of %2 today</translation>
    </message>
    <message>
        <source>%1 risk signals in a row (%2): no new tasks until %3</source>
        <translation>%1 risk signals in a row (%2): no new tasks until %3</translation>
    </message>
</context>
<context>
    <name>PacingKind</name>
    <message>
        <source>captcha</source>
        <translation>captcha</translation>
    </message>
    <message>
        <source>rate limit</source>
        <translation>rate limit</translation>
    </message>
    <message>
        <source>site busy</source>
        <translation>site busy</translation>
    </message>
    <message>
        <source>login lost</source>
        <translation>login lost</translation>
    </message>
    <message>
        <source>site conflict</source>
        <translation>site conflict</translation>
    </message>
</context>
<context>
    <name>ProxyFields</name>
    <message>
        <source>optional: http://USER@HOST:PORT, https://… or socks5://HOST:PORT</source>
        <translation>optional: http://USER@HOST:PORT, https://… or socks5://HOST:PORT</translation>
    </message>
    <message>
        <source>This account&apos;s way out. Empty: the default proxy of every account, if one is set; a proxy per account keeps a site from banning accounts together</source>
        <translation>This account&apos;s way out. Empty: the default proxy of every account, if one is set; a proxy per account keeps a site from banning accounts together</translation>
    </message>
    <message>
        <source>Proxy:</source>
        <translation>Proxy:</translation>
    </message>
    <message>
        <source>the proxy&apos;s password, if it asks for one; kept in the system&apos;s keyring</source>
        <translation>the proxy&apos;s password, if it asks for one; kept in the system&apos;s keyring</translation>
    </message>
    <message>
        <source>Test proxy</source>
        <translation>Test proxy</translation>
    </message>
    <message>
        <source>Connect through the proxy to this account&apos;s site and say what happened</source>
        <translation>Connect through the proxy to this account&apos;s site and say what happened</translation>
    </message>
    <message>
        <source>Proxy password:</source>
        <translation>Proxy password:</translation>
    </message>
    <message>
        <source>A proxy password needs a user name: http://USER@HOST:PORT</source>
        <translation>A proxy password needs a user name: http://USER@HOST:PORT</translation>
    </message>
    <message>
        <source>Testing the proxy…</source>
        <translation>Testing the proxy…</translation>
    </message>
    <message>
        <source>No proxy for this account: it goes out directly</source>
        <translation>No proxy for this account: it goes out directly</translation>
    </message>
    <message>
        <source>Connected to %1 through the proxy in %2 ms</source>
        <translation>Connected to %1 through the proxy in %2 ms</translation>
    </message>
    <message>
        <source>The proxy refused the user name or password (407)</source>
        <translation>The proxy refused the user name or password (407)</translation>
    </message>
    <message>
        <source>Cannot reach the proxy</source>
        <translation>Cannot reach the proxy</translation>
    </message>
    <message>
        <source>The proxy cannot reach the site (%1)</source>
        <translation>The proxy cannot reach the site (%1)</translation>
    </message>
</context>
<context>
    <name>QAbstractFileIconProvider</name>
    <message>
        <source>Folder</source>
        <translation>Folder</translation>
    </message>
    <message>
        <source>Drive</source>
        <translation>Drive</translation>
    </message>
    <message>
        <source>File</source>
        <translation>File</translation>
    </message>
    <message>
        <source>Alias</source>
        <translation>Alias</translation>
    </message>
    <message>
        <source>Shortcut</source>
        <translation>Shortcut</translation>
    </message>
</context>
<context>
    <name>QFileDialog</name>
    <message>
        <source>&amp;Look in:</source>
        <translation>&amp;Look in:</translation>
    </message>
    <message>
        <source>Files of &amp;type:</source>
        <translation>Files of &amp;type:</translation>
    </message>
</context>
<context>
    <name>QualityRule</name>
    <message>
        <source>answer too short</source>
        <translation>answer too short</translation>
    </message>
    <message>
        <source>the model refused</source>
        <translation>the model refused</translation>
    </message>
    <message>
        <source>answer cut at the length limit</source>
        <translation>answer cut at the length limit</translation>
    </message>
</context>
<context>
    <name>QueueControls</name>
    <message numerus="yes">
        <source>Queue paused: finishing %n running task(s)</source>
        <translation>
            <numerusform>Queue paused: finishing %n running task</numerusform>
            <numerusform>Queue paused: finishing %n running tasks</numerusform>
        </translation>
    </message>
    <message>
        <source>Queue paused</source>
        <translation>Queue paused</translation>
    </message>
</context>
<context>
    <name>Reason</name>
    <message>
        <source>Cannot reach the server: nothing answered at that address</source>
        <translation>Cannot reach the server: nothing answered at that address</translation>
    </message>
    <message>
        <source>The server did not answer within %1 s</source>
        <translation>The server did not answer within %1 s</translation>
    </message>
    <message>
        <source>The server sent nothing for %1 s</source>
        <translation>The server sent nothing for %1 s</translation>
    </message>
    <message>
        <source>Sending the request took too long</source>
        <translation>Sending the request took too long</translation>
    </message>
    <message>
        <source>The connection was cut off</source>
        <translation>The connection was cut off</translation>
    </message>
    <message>
        <source>The server&apos;s answer was not valid HTTP</source>
        <translation>The server&apos;s answer was not valid HTTP</translation>
    </message>
    <message>
        <source>The address must start with http:// or https://</source>
        <translation>The address must start with http:// or https://</translation>
    </message>
    <message>
        <source>No API key: open Accounts…, edit the account and paste its key, or name an environment variable that holds it</source>
        <translation>No API key: open Accounts…, edit the account and paste its key, or name an environment variable that holds it</translation>
    </message>
    <message>
        <source>The variable %2 that should hold the API key is not set in this app&apos;s environment: set it for your user, then quit Media Assistant and start it again</source>
        <translation>The variable %2 that should hold the API key is not set in this app&apos;s environment: set it for your user, then quit Media Assistant and start it again</translation>
    </message>
    <message>
        <source>It needs the built-in simulated site, which this start does not have</source>
        <translation>It needs the built-in simulated site, which this start does not have</translation>
    </message>
    <message>
        <source>Its site adapter cannot be used (see the tooltip)</source>
        <translation>Its site adapter cannot be used (see the tooltip)</translation>
    </message>
    <message>
        <source>A model of it names the site&apos;s own model, but its site adapter cannot choose models (see the tooltip)</source>
        <translation>A model of it names the site&apos;s own model, but its site adapter cannot choose models (see the tooltip)</translation>
    </message>
    <message>
        <source>It could not be started: an internal error (see the tooltip and the log)</source>
        <translation>It could not be started: an internal error (see the tooltip and the log)</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>Settings</translation>
    </message>
    <message>
        <source>automatic (Playwright&apos;s Chromium, Chrome/Edge, chromium)</source>
        <translation>automatic (Playwright&apos;s Chromium, Chrome/Edge, chromium)</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Browse…</translation>
    </message>
    <message>
        <source>Show the browser windows of web accounts</source>
        <translation>Show the browser windows of web accounts</translation>
    </message>
    <message>
        <source>Off: the browsers work without windows (a PC left running overnight)</source>
        <translation>Off: the browsers work without windows (a PC left running overnight)</translation>
    </message>
    <message>
        <source>System default</source>
        <translation>System default</translation>
    </message>
    <message>
        <source>Browser for web models:</source>
        <translation>Browser for web models:</translation>
    </message>
    <message>
        <source>Web task timeout:</source>
        <translation>Web task timeout:</translation>
    </message>
    <message>
        <source>API task timeout:</source>
        <translation>API task timeout:</translation>
    </message>
    <message>
        <source>Language:</source>
        <translation>Language:</translation>
    </message>
    <message>
        <source>Saved to %1. Language and browser changes apply at the next start.</source>
        <translation>Saved to %1. Language and browser changes apply at the next start.</translation>
    </message>
    <message>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <source>Browser executable</source>
        <translation>Browser executable</translation>
    </message>
</context>
<context>
    <name>SetupDialog</name>
    <message>
        <source>Accounts and models</source>
        <translation>Accounts and models</translation>
    </message>
    <message>
        <source>Welcome. Add the accounts your team works with, then start a batch.</source>
        <translation>Welcome. Add the accounts your team works with, then start a batch.</translation>
    </message>
    <message>
        <source>A web account is a chat site you sign in to in a browser (one task at a time); an API account is an address and a key (several tasks at once). Changes take effect at once, no restart needed.</source>
        <translation>A web account is a chat site you sign in to in a browser (one task at a time); an API account is an address and a key (several tasks at once). Changes take effect at once, no restart needed.</translation>
    </message>
    <message>
        <source>Account</source>
        <translation>Account</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Kind</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>Where</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>Models</translation>
    </message>
    <message>
        <source>Add web account…</source>
        <translation>Add web account…</translation>
    </message>
    <message>
        <source>Add API account…</source>
        <translation>Add API account…</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>Edit…</translation>
    </message>
    <message>
        <source>Log in</source>
        <translation>Log in</translation>
    </message>
    <message>
        <source>Open this account&apos;s browser profile to sign in</source>
        <translation>Open this account&apos;s browser profile to sign in</translation>
    </message>
    <message>
        <source>Remove…</source>
        <translation>Remove…</translation>
    </message>
    <message>
        <source>Accounts</source>
        <translation>Accounts</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Model</translation>
    </message>
    <message>
        <source>Served by</source>
        <translation>Served by</translation>
    </message>
    <message>
        <source>Options</source>
        <translation>Options</translation>
    </message>
    <message>
        <source>Models are added with the accounts that serve them.</source>
        <translation>Models are added with the accounts that serve them.</translation>
    </message>
    <message>
        <source>Team database</source>
        <translation>Team database</translation>
    </message>
    <message>
        <source>Saved in %1</source>
        <translation>Saved in %1</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Close</translation>
    </message>
    <message>
        <source>user&apos;s text only</source>
        <translation>user&apos;s text only</translation>
    </message>
    <message>
        <source>at the provider: %1</source>
        <translation>at the provider: %1</translation>
    </message>
    <message>
        <source>system prompt</source>
        <translation>system prompt</translation>
    </message>
    <message>
        <source>%1 saved.</source>
        <translation>%1 saved.</translation>
    </message>
    <message>
        <source>%1 saved; the scheduler already works with it</source>
        <translation>%1 saved; the scheduler already works with it</translation>
    </message>
    <message>
        <source>Sign in to %1 in the browser window, then close it</source>
        <translation>Sign in to %1 in the browser window, then close it</translation>
    </message>
    <message>
        <source>Remove account %1? A task it is running finishes first.</source>
        <translation>Remove account %1? A task it is running finishes first.</translation>
    </message>
    <message>
        <source>Only this account serves %1: removed too.</source>
        <translation>Only this account serves %1: removed too.</translation>
    </message>
    <message>
        <source>%1 removed</source>
        <translation>%1 removed</translation>
    </message>
    <message>
        <source>%1 is the only model of %2: give it another model first, or remove the account</source>
        <translation>%1 is the only model of %2: give it another model first, or remove the account</translation>
    </message>
    <message>
        <source>Remove model %1? Its waiting tasks stay in the queue until a model of that name is back.</source>
        <translation>Remove model %1? Its waiting tasks stay in the queue until a model of that name is back.</translation>
    </message>
</context>
<context>
    <name>SignIn</name>
    <message>
        <source>%1: signed in (%2)</source>
        <translation>%1: signed in (%2)</translation>
    </message>
    <message>
        <source>%1: not signed in: the site shows its sign-in</source>
        <translation>%1: not signed in: the site shows its sign-in</translation>
    </message>
    <message>
        <source>%1: the sign-in window was closed before signing in; nothing changed</source>
        <translation>%1: the sign-in window was closed before signing in; nothing changed</translation>
    </message>
    <message>
        <source>%1: no sign-in in time; the window was closed, nothing changed</source>
        <translation>%1: no sign-in in time; the window was closed, nothing changed</translation>
    </message>
    <message>
        <source>%1: cannot reach %2 (check the network); its login is unchanged</source>
        <translation>%1: cannot reach %2 (check the network); its login is unchanged</translation>
    </message>
    <message>
        <source>%1: the sign-in window could not be opened (%2)</source>
        <translation>%1: the sign-in window could not be opened (%2)</translation>
    </message>
    <message>
        <source>%1: its browser is still busy with a task; try again when it has finished</source>
        <translation>%1: its browser is still busy with a task; try again when it has finished</translation>
    </message>
    <message>
        <source>%1: its sign-in window is already open</source>
        <translation>%1: its sign-in window is already open</translation>
    </message>
    <message>
        <source>Signing in…</source>
        <translation>Signing in…</translation>
    </message>
</context>
<context>
    <name>SiteActions</name>
    <message>
        <source>&amp;Sites</source>
        <translation>&amp;Sites</translation>
    </message>
    <message>
        <source>Install adapter file…</source>
        <translation>Install adapter file…</translation>
    </message>
    <message>
        <source>A fixed site adapter (.toml): checked, then used by the accounts of its site from their next task; the one it replaces is kept</source>
        <translation>A fixed site adapter (.toml): checked, then used by the accounts of its site from their next task; the one it replaces is kept</translation>
    </message>
    <message>
        <source>Install adapter file</source>
        <translation>Install adapter file</translation>
    </message>
    <message>
        <source>Site adapter (*.toml)</source>
        <translation>Site adapter (*.toml)</translation>
    </message>
    <message>
        <source>Adapter not installed</source>
        <translation>Adapter not installed</translation>
    </message>
    <message>
        <source>%1 was not installed:</source>
        <translation>%1 was not installed:</translation>
    </message>
    <message>
        <source>Installed the adapter of site %1, version %2.</source>
        <translation>Installed the adapter of site %1, version %2.</translation>
    </message>
    <message>
        <source>It replaces %1, which is kept: `media-assistant sites rollback %2` puts it back.</source>
        <translation>It replaces %1, which is kept: `media-assistant sites rollback %2` puts it back.</translation>
    </message>
    <message>
        <source>Adapter installed</source>
        <translation>Adapter installed</translation>
    </message>
    <message>
        <source>%1 use it from their next task. Check the site now?</source>
        <translation>%1 use it from their next task. Check the site now?</translation>
    </message>
    <message>
        <source>Check site now</source>
        <translation>Check site now</translation>
    </message>
</context>
<context>
    <name>SiteCheckDialog</name>
    <message>
        <source>Check site: %1</source>
        <translation>Check site: %1</translation>
    </message>
    <message>
        <source>Checking %1: one short prompt through its chat page, after its current task and when its pacing allows a prompt…</source>
        <translation>Checking %1: one short prompt through its chat page, after its current task and when its pacing allows a prompt…</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>Step</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>Result</translation>
    </message>
    <message>
        <source>Took</source>
        <translation>Took</translation>
    </message>
    <message>
        <source>What it found</source>
        <translation>What it found</translation>
    </message>
    <message>
        <source>%1: every step passed (%2 s).</source>
        <translation>%1: every step passed (%2 s).</translation>
    </message>
    <message>
        <source>%1: the check failed at “%3” (%2 s).</source>
        <translation>%1: the check failed at “%3” (%2 s).</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>ok</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>failed</translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>skipped</translation>
    </message>
    <message>
        <source>Reset %1</source>
        <translation>Reset %1</translation>
    </message>
</context>
<context>
    <name>SiteFinding</name>
    <message>
        <source>%1 characters with input.method %2, read back equal</source>
        <translation>%1 characters with input.method %2, read back equal</translation>
    </message>
    <message>
        <source>%1 characters with input.method %2 (not read back: input.verify off)</source>
        <translation>%1 characters with input.method %2 (not read back: input.verify off)</translation>
    </message>
    <message>
        <source>the send control %1 matched nothing: pressed Enter, and the page showed the message</source>
        <translation>the send control %1 matched nothing: pressed Enter, and the page showed the message</translation>
    </message>
    <message>
        <source>clicked %1; the page showed the message</source>
        <translation>clicked %1; the page showed the message</translation>
    </message>
    <message>
        <source>pressed Enter; the page showed the message</source>
        <translation>pressed Enter; the page showed the message</translation>
    </message>
    <message>
        <source>the adapter declares no generating indicator</source>
        <translation>the adapter declares no generating indicator</translation>
    </message>
    <message>
        <source>the adapter declares no done marker (taken when the generating indicator went away)</source>
        <translation>the adapter declares no done marker (taken when the generating indicator went away)</translation>
    </message>
    <message>
        <source>the adapter declares no done marker (taken when the text held still)</source>
        <translation>the adapter declares no done marker (taken when the text held still)</translation>
    </message>
    <message>
        <source>%1 matched nothing while the answer was written</source>
        <translation>%1 matched nothing while the answer was written</translation>
    </message>
    <message>
        <source>%1 matched nothing (the answer was taken after %2 s of stable text, done_grace_s)</source>
        <translation>%1 matched nothing (the answer was taken after %2 s of stable text, done_grace_s)</translation>
    </message>
    <message>
        <source>answer.format = &quot;text&quot;: the text taken as shown</source>
        <translation>answer.format = &quot;text&quot;: the text taken as shown</translation>
    </message>
    <message>
        <source>the answer&apos;s HTML gave no Markdown</source>
        <translation>the answer&apos;s HTML gave no Markdown</translation>
    </message>
    <message>
        <source>%1 characters of Markdown</source>
        <translation>%1 characters of Markdown</translation>
    </message>
    <message>
        <source>the answer had no markup: its text taken as shown</source>
        <translation>the answer had no markup: its text taken as shown</translation>
    </message>
    <message>
        <source>the adapter declares no New chat control (the page is loaded per task)</source>
        <translation>the adapter declares no New chat control (the page is loaded per task)</translation>
    </message>
    <message>
        <source>%1 gave no empty chat within %2 s</source>
        <translation>%1 gave no empty chat within %2 s</translation>
    </message>
    <message>
        <source>%1: an empty chat</source>
        <translation>%1: an empty chat</translation>
    </message>
    <message>
        <source>no sign-in marker showed (the adapter declares none)</source>
        <translation>no sign-in marker showed (the adapter declares none)</translation>
    </message>
    <message>
        <source>no sign-in marker showed (%1)</source>
        <translation>no sign-in marker showed (%1)</translation>
    </message>
    <message>
        <source>passed</source>
        <translation>passed</translation>
    </message>
    <message>
        <source>canceled</source>
        <translation>canceled</translation>
    </message>
    <message>
        <source>browser or page error: %1</source>
        <translation>browser or page error: %1</translation>
    </message>
    <message>
        <source>%1 matched nothing (more in the tooltip)</source>
        <translation>%1 matched nothing (more in the tooltip)</translation>
    </message>
    <message>
        <source>%1 showed</source>
        <translation>%1 showed</translation>
    </message>
    <message>
        <source>%1 appeared</source>
        <translation>%1 appeared</translation>
    </message>
    <message>
        <source>%1 visible</source>
        <translation>%1 visible</translation>
    </message>
    <message>
        <source>%1 characters</source>
        <translation>%1 characters</translation>
    </message>
    <message>
        <source>inserted as text</source>
        <translation>inserted as text</translation>
    </message>
    <message>
        <source>typed key by key</source>
        <translation>typed key by key</translation>
    </message>
    <message>
        <source>filled in</source>
        <translation>filled in</translation>
    </message>
</context>
<context>
    <name>SiteRepairDialog</name>
    <message>
        <source>Repair site: %1</source>
        <translation>Repair site: %1</translation>
    </message>
    <message>
        <source>Repairing %1 from its page: a few short prompts, after its current task and when its pacing allows…</source>
        <translation>Repairing %1 from its page: a few short prompts, after its current task and when its pacing allows…</translation>
    </message>
    <message>
        <source>Install</source>
        <translation>Install</translation>
    </message>
    <message>
        <source>%1: its page cannot be repaired here.</source>
        <translation>%1: its page cannot be repaired here.</translation>
    </message>
    <message>
        <source>Proven: a site check passed every step with the repaired adapter (version %1). Install it?</source>
        <translation>Proven: a site check passed every step with the repaired adapter (version %1). Install it?</translation>
    </message>
    <message>
        <source>Nothing proven; nothing will be installed.</source>
        <translation>Nothing proven; nothing will be installed.</translation>
    </message>
</context>
<context>
    <name>SkippedIdsNotice</name>
    <message>
        <source>Tasks already present</source>
        <translation>Tasks already present</translation>
    </message>
    <message numerus="yes">
        <source>Batch %1: %n task(s) with these ids were already present and were not added again:</source>
        <translation>
            <numerusform>Batch %1: %n task with this id was already present and was not added again:</numerusform>
            <numerusform>Batch %1: %n tasks with these ids were already present and were not added again:</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>… and %n more (see the details)</source>
        <translation>
            <numerusform>… and %n more (see the details)</numerusform>
            <numerusform>… and %n more (see the details)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>StoreBanner</name>
    <message>
        <source>&lt;b&gt;Team database unreachable&lt;/b&gt; — reconnecting, %1. No new task starts; running ones go on.</source>
        <translation>&lt;b&gt;Team database unreachable&lt;/b&gt; — reconnecting, %1. No new task starts; running ones go on.</translation>
    </message>
    <message numerus="yes">
        <source>%n answer(s) received are kept and will be written when it answers.</source>
        <translation>
            <numerusform>%n answer received is kept and will be written when it answers.</numerusform>
            <numerusform>%n answers received are kept and will be written when it answers.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>StoreRecovery</name>
    <message>
        <source>The task database cannot be opened:

%1</source>
        <translation>The task database cannot be opened:

%1</translation>
    </message>
    <message>
        <source>There is no backup to restore.</source>
        <translation>There is no backup to restore.</translation>
    </message>
    <message>
        <source>Restore the latest backup, made %1? The damaged file is kept beside it.</source>
        <translation>Restore the latest backup, made %1? The damaged file is kept beside it.</translation>
    </message>
    <message>
        <source>Media Assistant</source>
        <translation>Media Assistant</translation>
    </message>
    <message>
        <source>Restore backup</source>
        <translation>Restore backup</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>Quit</translation>
    </message>
    <message>
        <source>The backup could not be restored:

%1</source>
        <translation>The backup could not be restored:

%1</translation>
    </message>
    <message>
        <source>Restoring the backup…</source>
        <translation>Restoring the backup…</translation>
    </message>
</context>
<context>
    <name>TaskActions</name>
    <message>
        <source>Cancel</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <source>Cancel batch</source>
        <translation>Cancel batch</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>Retry</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>Export…</translation>
    </message>
    <message>
        <source>Retry failed…</source>
        <translation>Retry failed…</translation>
    </message>
    <message>
        <source>Pause all</source>
        <translation>Pause all</translation>
    </message>
    <message>
        <source>Cancel the selected unfinished tasks</source>
        <translation>Cancel the selected unfinished tasks</translation>
    </message>
    <message>
        <source>Select tasks to cancel</source>
        <translation>Select tasks to cancel</translation>
    </message>
    <message>
        <source>The selected tasks have all finished</source>
        <translation>The selected tasks have all finished</translation>
    </message>
    <message>
        <source>Run the selected failed or canceled tasks again</source>
        <translation>Run the selected failed or canceled tasks again</translation>
    </message>
    <message>
        <source>Select failed or canceled tasks to retry</source>
        <translation>Select failed or canceled tasks to retry</translation>
    </message>
    <message>
        <source>None of the selected tasks failed or was canceled</source>
        <translation>None of the selected tasks failed or was canceled</translation>
    </message>
    <message>
        <source>Cancel every unfinished task of batch %1</source>
        <translation>Cancel every unfinished task of batch %1</translation>
    </message>
    <message>
        <source>Choose a batch (in the list or the filter) or one of its tasks</source>
        <translation>Choose a batch (in the list or the filter) or one of its tasks</translation>
    </message>
    <message>
        <source>Every task of batch %1 has finished</source>
        <translation>Every task of batch %1 has finished</translation>
    </message>
    <message>
        <source>Run the failed tasks of batch %1 again (you confirm first)</source>
        <translation>Run the failed tasks of batch %1 again (you confirm first)</translation>
    </message>
    <message>
        <source>No task of batch %1 failed</source>
        <translation>No task of batch %1 failed</translation>
    </message>
    <message>
        <source>Run the failed tasks of all batches again (you confirm first)</source>
        <translation>Run the failed tasks of all batches again (you confirm first)</translation>
    </message>
    <message>
        <source>No task has failed</source>
        <translation>No task has failed</translation>
    </message>
    <message>
        <source>Write tasks and their results to a file</source>
        <translation>Write tasks and their results to a file</translation>
    </message>
    <message>
        <source>There are no tasks yet</source>
        <translation>There are no tasks yet</translation>
    </message>
    <message>
        <source>Resume all</source>
        <translation>Resume all</translation>
    </message>
    <message>
        <source>Start new tasks again</source>
        <translation>Start new tasks again</translation>
    </message>
    <message>
        <source>Start no new task anywhere; running tasks finish</source>
        <translation>Start no new task anywhere; running tasks finish</translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) canceled</source>
        <translation>
            <numerusform>%n task canceled</numerusform>
            <numerusform>%n tasks canceled</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n running task(s) will stop at the next checkpoint</source>
        <translation>
            <numerusform>%n running task will stop at the next checkpoint</numerusform>
            <numerusform>%n running tasks will stop at the next checkpoint</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing to cancel: those tasks had already finished</source>
        <translation>Nothing to cancel: those tasks had already finished</translation>
    </message>
    <message>
        <source>; </source>
        <comment>joins parts of a sentence</comment>
        <translation>; </translation>
    </message>
    <message>
        <source>Pick a batch in the list, or select one of its tasks</source>
        <translation>Pick a batch in the list, or select one of its tasks</translation>
    </message>
    <message numerus="yes">
        <source>Cancel the %n unfinished task(s) of batch %1?</source>
        <translation>
            <numerusform>Cancel the %n unfinished task of batch %1?</numerusform>
            <numerusform>Cancel the %n unfinished tasks of batch %1?</numerusform>
        </translation>
    </message>
    <message>
        <source>No failed task of batch %1 can be retried as it is</source>
        <translation>No failed task of batch %1 can be retried as it is</translation>
    </message>
    <message>
        <source>No failed task can be retried as it is</source>
        <translation>No failed task can be retried as it is</translation>
    </message>
    <message numerus="yes">
        <source>Run the %n failed task(s) of batch %1 again?</source>
        <translation>
            <numerusform>Run the %n failed task of batch %1 again?</numerusform>
            <numerusform>Run the %n failed tasks of batch %1 again?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Run the %n failed task(s) of all batches again?</source>
        <translation>
            <numerusform>Run the %n failed task of all batches again?</numerusform>
            <numerusform>Run the %n failed tasks of all batches again?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) blocked by the content policy, too long for the model or with bad input are left out: they would fail the same way. Retry them one by one, with an edited prompt, from their details.</source>
        <translation>
            <numerusform>%n task blocked by the content policy, too long for the model or with bad input is left out: it would fail the same way. Retry it with an edited prompt from its details.</numerusform>
            <numerusform>%n tasks blocked by the content policy, too long for the model or with bad input are left out: they would fail the same way. Retry them one by one, with an edited prompt, from their details.</numerusform>
        </translation>
    </message>
    <message>
        <source>Retry failed tasks</source>
        <translation>Retry failed tasks</translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) back in the queue</source>
        <translation>
            <numerusform>%n task back in the queue</numerusform>
            <numerusform>%n tasks back in the queue</numerusform>
        </translation>
    </message>
    <message>
        <source>the whole queue</source>
        <translation>the whole queue</translation>
    </message>
    <message>
        <source>the %1 lane</source>
        <translation>the %1 lane</translation>
    </message>
    <message>
        <source>batch %1</source>
        <translation>batch %1</translation>
    </message>
    <message>
        <source>account %1</source>
        <translation>account %1</translation>
    </message>
    <message>
        <source>Resumed %1</source>
        <translation>Resumed %1</translation>
    </message>
    <message numerus="yes">
        <source>Pausing %1 after the current task (%n running)</source>
        <translation>
            <numerusform>Pausing %1 after the current task (%n running)</numerusform>
            <numerusform>Pausing %1 after the current task (%n running)</numerusform>
        </translation>
    </message>
    <message>
        <source>Paused %1: nothing new starts</source>
        <translation>Paused %1: nothing new starts</translation>
    </message>
    <message>
        <source>Set priority</source>
        <translation>Set priority</translation>
    </message>
    <message>
        <source>Priority (higher runs first; 0 is normal):</source>
        <translation>Priority (higher runs first; 0 is normal):</translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) now at priority %1</source>
        <translation>
            <numerusform>%n task now at priority %1</numerusform>
            <numerusform>%n tasks now at priority %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>; %n already finished, left as they were</source>
        <translation>
            <numerusform>; %n already finished, left as it was</numerusform>
            <numerusform>; %n already finished, left as they were</numerusform>
        </translation>
    </message>
    <message>
        <source>Exporting to %1…</source>
        <translation>Exporting to %1…</translation>
    </message>
    <message>
        <source>Export canceled; nothing was written</source>
        <translation>Export canceled; nothing was written</translation>
    </message>
    <message>
        <source>The team database cannot be reached: nothing was exported. Try again once it answers.</source>
        <translation>The team database cannot be reached: nothing was exported. Try again once it answers.</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>Export failed</translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) written to %1</source>
        <translation>
            <numerusform>%n task written to %1</numerusform>
            <numerusform>%n tasks written to %1</numerusform>
        </translation>
    </message>
    <message>
        <source>Export finished</source>
        <translation>Export finished</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>Open folder</translation>
    </message>
    <message>
        <source>No file manager could be started here. The folder is:
%1</source>
        <translation>No file manager could be started here. The folder is:
%1</translation>
    </message>
</context>
<context>
    <name>TaskDetailsDialog</name>
    <message>
        <source>&amp;Result</source>
        <translation>&amp;Result</translation>
    </message>
    <message>
        <source>&amp;Prompt</source>
        <translation>&amp;Prompt</translation>
    </message>
    <message>
        <source>&amp;Event log</source>
        <translation>&amp;Event log</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>Retry</translation>
    </message>
    <message>
        <source>Edit prompt and retry…</source>
        <translation>Edit prompt and retry…</translation>
    </message>
    <message>
        <source>Task %1</source>
        <translation>Task %1</translation>
    </message>
    <message>
        <source>It has not finished yet</source>
        <translation>It has not finished yet</translation>
    </message>
    <message>
        <source>It succeeded: nothing to retry</source>
        <translation>It succeeded: nothing to retry</translation>
    </message>
    <message>
        <source>Run this task again (same row, 3 more attempts)</source>
        <translation>Run this task again (same row, 3 more attempts)</translation>
    </message>
    <message>
        <source>Change the prompt, then run the task again with it</source>
        <translation>Change the prompt, then run the task again with it</translation>
    </message>
    <message>
        <source>Retry with this prompt</source>
        <translation>Retry with this prompt</translation>
    </message>
    <message>
        <source>Run the task again with the prompt as edited</source>
        <translation>Run the task again with the prompt as edited</translation>
    </message>
    <message>
        <source>The prompt cannot be empty</source>
        <translation>The prompt cannot be empty</translation>
    </message>
    <message numerus="yes">
        <source>&amp;Event log (%n)</source>
        <translation>
            <numerusform>&amp;Event log (%n)</numerusform>
            <numerusform>&amp;Event log (%n)</numerusform>
        </translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>Model:</translation>
    </message>
    <message>
        <source>Lane:</source>
        <translation>Lane:</translation>
    </message>
    <message>
        <source>Account:</source>
        <translation>Account:</translation>
    </message>
    <message>
        <source>Attempt:</source>
        <translation>Attempt:</translation>
    </message>
    <message>
        <source>Started:</source>
        <translation>Started:</translation>
    </message>
    <message>
        <source>Finished:</source>
        <translation>Finished:</translation>
    </message>
    <message>
        <source>Duration:</source>
        <translation>Duration:</translation>
    </message>
    <message>
        <source>Priority:</source>
        <translation>Priority:</translation>
    </message>
    <message>
        <source>Task %1 · batch %2</source>
        <translation>Task %1 · batch %2</translation>
    </message>
    <message>
        <source>Canceled, as you asked.</source>
        <translation>Canceled, as you asked.</translation>
    </message>
    <message>
        <source>The last attempt failed; another follows: %1</source>
        <translation>The last attempt failed; another follows: %1</translation>
    </message>
    <message>
        <source>%1 so far</source>
        <translation>%1 so far</translation>
    </message>
    <message>
        <source>%1 — cancel requested</source>
        <translation>%1 — cancel requested</translation>
    </message>
    <message>
        <source>Waiting to retry at %1</source>
        <translation>Waiting to retry at %1</translation>
    </message>
    <message>
        <source>System prompt:</source>
        <translation>System prompt:</translation>
    </message>
    <message>
        <source>Prompt:</source>
        <translation>Prompt:</translation>
    </message>
</context>
<context>
    <name>TaskEventKind</name>
    <message>
        <source>State</source>
        <translation>State</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>Retry</translation>
    </message>
    <message>
        <source>Self-check</source>
        <translation>Self-check</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>Log</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Error</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancel</translation>
    </message>
</context>
<context>
    <name>TaskResultPage</name>
    <message>
        <source>Show ra&amp;w text</source>
        <translation>Show ra&amp;w text</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>&amp;Copy</translation>
    </message>
    <message>
        <source>Copy the answer&apos;s raw text to the clipboard</source>
        <translation>Copy the answer&apos;s raw text to the clipboard</translation>
    </message>
    <message>
        <source>Copy &amp;plain text</source>
        <translation>Copy &amp;plain text</translation>
    </message>
    <message>
        <source>Copy the answer as plain text (as the page showed it)</source>
        <translation>Copy the answer as plain text (as the page showed it)</translation>
    </message>
    <message numerus="yes">
        <source>Reasoning (%Ln character(s))</source>
        <translation>
            <numerusform>Reasoning (%Ln character)</numerusform>
            <numerusform>Reasoning (%Ln characters)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Generating… %Ln character(s) so far</source>
        <translation>
            <numerusform>Generating… %Ln character so far</numerusform>
            <numerusform>Generating… %Ln characters so far</numerusform>
        </translation>
    </message>
    <message>
        <source>Generating… waiting for the first characters</source>
        <translation>Generating… waiting for the first characters</translation>
    </message>
    <message>
        <source>Waiting for a free account</source>
        <translation>Waiting for a free account</translation>
    </message>
    <message>
        <source>No answer: the task failed (see the error above and the event log)</source>
        <translation>No answer: the task failed (see the error above and the event log)</translation>
    </message>
    <message>
        <source>No answer: the task was canceled</source>
        <translation>No answer: the task was canceled</translation>
    </message>
    <message>
        <source>The task finished without an answer</source>
        <translation>The task finished without an answer</translation>
    </message>
    <message>
        <source>Copied to the clipboard</source>
        <translation>Copied to the clipboard</translation>
    </message>
    <message numerus="yes">
        <source>%Ln character(s)</source>
        <translation>
            <numerusform>%Ln character</numerusform>
            <numerusform>%Ln characters</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>TaskState</name>
    <message>
        <source>Pending</source>
        <translation>Pending</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>Running</translation>
    </message>
    <message>
        <source>Succeeded</source>
        <translation>Succeeded</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Failed</translation>
    </message>
    <message>
        <source>Canceled</source>
        <translation>Canceled</translation>
    </message>
</context>
<context>
    <name>TaskTable</name>
    <message>
        <source>Filter by text, task id or error…</source>
        <translation>Filter by text, task id or error…</translation>
    </message>
    <message>
        <source>All states</source>
        <translation>All states</translation>
    </message>
    <message>
        <source>Not finished</source>
        <translation>Not finished</translation>
    </message>
    <message>
        <source>Needs a look</source>
        <translation>Needs a look</translation>
    </message>
    <message>
        <source>Both lanes</source>
        <translation>Both lanes</translation>
    </message>
    <message>
        <source>All batches</source>
        <translation>All batches</translation>
    </message>
    <message>
        <source>Open details</source>
        <translation>Open details</translation>
    </message>
    <message>
        <source>Details…</source>
        <translation>Details…</translation>
    </message>
    <message numerus="yes">
        <source>Cancel %n task(s)</source>
        <translation>
            <numerusform>Cancel %n task</numerusform>
            <numerusform>Cancel %n tasks</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Retry %n task(s)</source>
        <translation>
            <numerusform>Retry %n task</numerusform>
            <numerusform>Retry %n tasks</numerusform>
        </translation>
    </message>
    <message>
        <source>Export selection…</source>
        <translation>Export selection…</translation>
    </message>
    <message>
        <source>Priority</source>
        <translation>Priority</translation>
    </message>
    <message>
        <source>Move to the top</source>
        <translation>Move to the top</translation>
    </message>
    <message>
        <source>Move to the bottom</source>
        <translation>Move to the bottom</translation>
    </message>
    <message>
        <source>Set priority…</source>
        <translation>Set priority…</translation>
    </message>
</context>
<context>
    <name>TaskTableModel</name>
    <message>
        <source>Task</source>
        <translation>Task</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Model</translation>
    </message>
    <message>
        <source>Lane</source>
        <translation>Lane</translation>
    </message>
    <message>
        <source>Account</source>
        <translation>Account</translation>
    </message>
    <message>
        <source>State</source>
        <translation>State</translation>
    </message>
    <message>
        <source>Attempt</source>
        <translation>Attempt</translation>
    </message>
    <message>
        <source>Heartbeat</source>
        <translation>Heartbeat</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>Started</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>Duration</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Error</translation>
    </message>
    <message>
        <source>Priority</source>
        <translation>Priority</translation>
    </message>
    <message>
        <source>Workstation</source>
        <translation>Workstation</translation>
    </message>
    <message>
        <source>Canceling…</source>
        <translation>Canceling…</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>Paused</translation>
    </message>
    <message>
        <source>Scheduled %1</source>
        <translation>Scheduled %1</translation>
    </message>
    <message>
        <source>Retry in %1</source>
        <translation>Retry in %1</translation>
    </message>
    <message numerus="yes">
        <source>%n characters so far</source>
        <translation>
            <numerusform>%n character so far</numerusform>
            <numerusform>%n characters so far</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>TeamAccounts</name>
    <message>
        <source>On other workstations</source>
        <translation>On other workstations</translation>
    </message>
    <message>
        <source>Account</source>
        <translation>Account</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>Where</translation>
    </message>
    <message>
        <source>not working: its workstation is off</source>
        <translation>not working: its workstation is off</translation>
    </message>
    <message>
        <source>running a task</source>
        <translation>running a task</translation>
    </message>
    <message>
        <source>This web account belongs to %1: its browser profile and sign-in are there, so only %1 runs it. Shown here read-only.</source>
        <translation>This web account belongs to %1: its browser profile and sign-in are there, so only %1 runs it. Shown here read-only.</translation>
    </message>
    <message>
        <source>on %1</source>
        <translation>on %1</translation>
    </message>
    <message>
        <source>%1 · online</source>
        <translation>%1 · online</translation>
    </message>
    <message>
        <source>%1 · offline</source>
        <translation>%1 · offline</translation>
    </message>
    <message>
        <source>%1 · offline, last seen %2 ago</source>
        <translation>%1 · offline, last seen %2 ago</translation>
    </message>
    <message>
        <source>held there, not run on this workstation</source>
        <translation>held there, not run on this workstation</translation>
    </message>
    <message>
        <source>%1 holds this web account (its browser profile and sign-in are there), so this workstation leaves it alone.</source>
        <translation>%1 holds this web account (its browser profile and sign-in are there), so this workstation leaves it alone.</translation>
    </message>
</context>
<context>
    <name>TeamPage</name>
    <message>
        <source>Several workstations can share one queue on a PostgreSQL database: a batch submitted once runs on whichever workstation has a free account, and every window sees the whole team. Leave the address empty to keep this PC&apos;s own queue.</source>
        <translation>Several workstations can share one queue on a PostgreSQL database: a batch submitted once runs on whichever workstation has a free account, and every window sees the whole team. Leave the address empty to keep this PC&apos;s own queue.</translation>
    </message>
    <message>
        <source>postgresql://USER@HOST:5432/DATABASE — libpq parameters may follow, such as ?sslmode=verify-full. Never the password: it goes in the field below.</source>
        <translation>postgresql://USER@HOST:5432/DATABASE — libpq parameters may follow, such as ?sslmode=verify-full. Never the password: it goes in the field below.</translation>
    </message>
    <message>
        <source>leave empty to keep the stored one</source>
        <translation>leave empty to keep the stored one</translation>
    </message>
    <message>
        <source>%1 (this computer&apos;s name)</source>
        <translation>%1 (this computer&apos;s name)</translation>
    </message>
    <message>
        <source>Its web accounts belong to it (their browser profiles are here); the other workstations show them as “on %1”.</source>
        <translation>Its web accounts belong to it (their browser profiles are here); the other workstations show them as “on %1”.</translation>
    </message>
    <message>
        <source>Team database:</source>
        <translation>Team database:</translation>
    </message>
    <message>
        <source>Password:</source>
        <translation>Password:</translation>
    </message>
    <message>
        <source>This workstation:</source>
        <translation>This workstation:</translation>
    </message>
    <message>
        <source>Test connection</source>
        <translation>Test connection</translation>
    </message>
    <message>
        <source>Connect once with the address and password above; nothing is changed</source>
        <translation>Connect once with the address and password above; nothing is changed</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>Save</translation>
    </message>
    <message>
        <source>kept in the password file if you agree when saving</source>
        <translation>kept in the password file if you agree when saving</translation>
    </message>
    <message>
        <source>the password of the database&apos;s user</source>
        <translation>the password of the database&apos;s user</translation>
    </message>
    <message>
        <source>Enter the team database&apos;s address first</source>
        <translation>Enter the team database&apos;s address first</translation>
    </message>
    <message>
        <source>Enter the team database&apos;s address to test it</source>
        <translation>Enter the team database&apos;s address to test it</translation>
    </message>
    <message>
        <source>Connecting to %1…</source>
        <translation>Connecting to %1…</translation>
    </message>
    <message>
        <source>This team database did not accept the connection (see the page). Save it anyway? Media Assistant would wait for it at its next start, then stop.</source>
        <translation>This team database did not accept the connection (see the page). Save it anyway? Media Assistant would wait for it at its next start, then stop.</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>Saved.</translation>
    </message>
    <message>
        <source>Saved. Media Assistant works with it after a restart.</source>
        <translation>Saved. Media Assistant works with it after a restart.</translation>
    </message>
    <message>
        <source>The system keyring did not keep the password: %1</source>
        <translation>The system keyring did not keep the password: %1</translation>
    </message>
    <message>
        <source>This computer has no system keyring to keep the password in. Write it to PostgreSQL&apos;s own password file, %1? Only your user account can read that file; Media Assistant (and psql) find the password there at every start.</source>
        <translation>This computer has no system keyring to keep the password in. Write it to PostgreSQL&apos;s own password file, %1? Only your user account can read that file; Media Assistant (and psql) find the password there at every start.</translation>
    </message>
    <message>
        <source>Write the password file</source>
        <translation>Write the password file</translation>
    </message>
    <message>
        <source>The password was not kept: save again and let it be written to the password file, or leave the field empty and set PGPASSWORD.</source>
        <translation>The password was not kept: save again and let it be written to the password file, or leave the field empty and set PGPASSWORD.</translation>
    </message>
    <message>
        <source>The password is in %1.</source>
        <translation>The password is in %1.</translation>
    </message>
    <message>
        <source>Restart Media Assistant</source>
        <translation>Restart Media Assistant</translation>
    </message>
    <message>
        <source>The team database and the workstation&apos;s name take effect when Media Assistant starts again. Restart now? Running tasks go back to the queue and carry on after the restart, without using an attempt.</source>
        <translation>The team database and the workstation&apos;s name take effect when Media Assistant starts again. Restart now? Running tasks go back to the queue and carry on after the restart, without using an attempt.</translation>
    </message>
    <message>
        <source>Restart now</source>
        <translation>Restart now</translation>
    </message>
    <message>
        <source>Later</source>
        <translation>Later</translation>
    </message>
    <message>
        <source>Team database</source>
        <translation>Team database</translation>
    </message>
    <message>
        <source>The server refused the password of %1: type it again.</source>
        <translation>The server refused the password of %1: type it again.</translation>
    </message>
    <message>
        <source>The server asks for a password for %1: type it above, or put it in PGPASSWORD or the pgpass file.</source>
        <translation>The server asks for a password for %1: type it above, or put it in PGPASSWORD or the pgpass file.</translation>
    </message>
    <message>
        <source>There is no database %4 on %2:%3.</source>
        <translation>There is no database %4 on %2:%3.</translation>
    </message>
    <message>
        <source>There is no user (role) %1 on %2:%3.</source>
        <translation>There is no user (role) %1 on %2:%3.</translation>
    </message>
    <message>
        <source>The server does not let %1 connect from this computer (pg_hba.conf): ask its administrator.</source>
        <translation>The server does not let %1 connect from this computer (pg_hba.conf): ask its administrator.</translation>
    </message>
    <message>
        <source>%1 may not connect to the database %4: ask the administrator to allow it.</source>
        <translation>%1 may not connect to the database %4: ask the administrator to allow it.</translation>
    </message>
    <message>
        <source>The server is starting up or shutting down: try again in a moment.</source>
        <translation>The server is starting up or shutting down: try again in a moment.</translation>
    </message>
    <message>
        <source>The server has no free connection: try again later, or ask its administrator.</source>
        <translation>The server has no free connection: try again later, or ask its administrator.</translation>
    </message>
    <message>
        <source>Nothing answers at %2:%3: the server is not running there, or a firewall blocks the port.</source>
        <translation>Nothing answers at %2:%3: the server is not running there, or a firewall blocks the port.</translation>
    </message>
    <message>
        <source>The computer %2 is not known on this network: check the address.</source>
        <translation>The computer %2 is not known on this network: check the address.</translation>
    </message>
    <message>
        <source>%2:%3 does not answer: check the network, the address and the firewall.</source>
        <translation>%2:%3 does not answer: check the network, the address and the firewall.</translation>
    </message>
    <message>
        <source>The encrypted connection (TLS) failed: check sslmode in the address and the server&apos;s certificate.</source>
        <translation>The encrypted connection (TLS) failed: check sslmode in the address and the server&apos;s certificate.</translation>
    </message>
    <message>
        <source>The address cannot be used: write it as postgresql://USER@HOST:5432/DATABASE (libpq parameters such as ?sslmode=require after it).</source>
        <translation>The address cannot be used: write it as postgresql://USER@HOST:5432/DATABASE (libpq parameters such as ?sslmode=require after it).</translation>
    </message>
    <message>
        <source>The connection failed.</source>
        <translation>The connection failed.</translation>
    </message>
    <message>
        <source>A password for this database is kept in the system keyring; type a new one to replace it.</source>
        <translation>A password for this database is kept in the system keyring; type a new one to replace it.</translation>
    </message>
    <message>
        <source>A password typed here is kept in the system keyring, never in config.toml. Or leave it empty and use PGPASSWORD or the pgpass file.</source>
        <translation>A password typed here is kept in the system keyring, never in config.toml. Or leave it empty and use PGPASSWORD or the pgpass file.</translation>
    </message>
    <message>
        <source>This computer has no system keyring: a password typed here can be written, when you save, to PostgreSQL&apos;s own password file (%APPDATA%\postgresql\pgpass.conf on Windows, ~/.pgpass elsewhere), or set the PGPASSWORD environment variable.</source>
        <translation>This computer has no system keyring: a password typed here can be written, when you save, to PostgreSQL&apos;s own password file (%APPDATA%\postgresql\pgpass.conf on Windows, ~/.pgpass elsewhere), or set the PGPASSWORD environment variable.</translation>
    </message>
    <message>
        <source>The system keyring does not answer (locked?): unlock it, or keep the password in PGPASSWORD or the pgpass file.</source>
        <translation>The system keyring does not answer (locked?): unlock it, or keep the password in PGPASSWORD or the pgpass file.</translation>
    </message>
    <message>
        <source>The server said: %1</source>
        <translation>The server said: %1</translation>
    </message>
    <message>
        <source>Connected: PostgreSQL %1.</source>
        <translation>Connected: PostgreSQL %1.</translation>
    </message>
    <message>
        <source>The database is empty and %1 may not create tables in it: ask its administrator to run GRANT CREATE ON SCHEMA public TO %1 (or to make %1 the database&apos;s owner).</source>
        <translation>The database is empty and %1 may not create tables in it: ask its administrator to run GRANT CREATE ON SCHEMA public TO %1 (or to make %1 the database&apos;s owner).</translation>
    </message>
    <message>
        <source>The database is empty: Media Assistant creates its tables at its first start.</source>
        <translation>The database is empty: Media Assistant creates its tables at its first start.</translation>
    </message>
    <message>
        <source>Its queue has schema version %1, newer than this app&apos;s %2: update Media Assistant on this workstation first.</source>
        <translation>Its queue has schema version %1, newer than this app&apos;s %2: update Media Assistant on this workstation first.</translation>
    </message>
    <message>
        <source>It holds a Media Assistant queue (schema version %1); the first start updates it to %2.</source>
        <translation>It holds a Media Assistant queue (schema version %1); the first start updates it to %2.</translation>
    </message>
    <message>
        <source>It holds a Media Assistant queue.</source>
        <translation>It holds a Media Assistant queue.</translation>
    </message>
    <message>
        <source>This window works on this PC&apos;s own queue (%1).</source>
        <translation>This window works on this PC&apos;s own queue (%1).</translation>
    </message>
    <message>
        <source>This window works on the team database %1 as workstation %2.</source>
        <translation>This window works on the team database %1 as workstation %2.</translation>
    </message>
    <message>
        <source>%1 is set on this computer: it wins over the address saved here.</source>
        <translation>%1 is set on this computer: it wins over the address saved here.</translation>
    </message>
    <message>
        <source>It was started with --store-url, which wins over the address saved here.</source>
        <translation>It was started with --store-url, which wins over the address saved here.</translation>
    </message>
</context>
<context>
    <name>TeamView</name>
    <message>
        <source>Team: unknown while the database is unreachable</source>
        <translation>Team: unknown while the database is unreachable</translation>
    </message>
    <message numerus="yes">
        <source>Team: %n workstation(s) online</source>
        <translation>
            <numerusform>Team: %n workstation online</numerusform>
            <numerusform>Team: %n workstations online</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (this one)</source>
        <translation>%1 (this one)</translation>
    </message>
    <message numerus="yes">
        <source>%1: online, %n task(s) running</source>
        <translation>
            <numerusform>%1: online, %n task running</numerusform>
            <numerusform>%1: online, %n tasks running</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: offline, last seen %2 ago</source>
        <translation>%1: offline, last seen %2 ago</translation>
    </message>
    <message>
        <source>%1: offline</source>
        <translation>%1: offline</translation>
    </message>
    <message>
        <source>The team database cannot be reached: that was not done. Try again once it answers.</source>
        <translation>The team database cannot be reached: that was not done. Try again once it answers.</translation>
    </message>
</context>
<context>
    <name>TimelineWidget</name>
    <message>
        <source>%1 so far</source>
        <translation>%1 so far</translation>
    </message>
    <message>
        <source>Task: %1</source>
        <translation>Task: %1</translation>
    </message>
    <message>
        <source>State: %1</source>
        <translation>State: %1</translation>
    </message>
    <message>
        <source>Duration: %1</source>
        <translation>Duration: %1</translation>
    </message>
    <message>
        <source>Started: %1</source>
        <translation>Started: %1</translation>
    </message>
    <message>
        <source>Follow</source>
        <translation>Follow</translation>
    </message>
    <message>
        <source>Keep now at the right edge. Drag or scroll to look back, double-click to return.</source>
        <translation>Keep now at the right edge. Drag or scroll to look back, double-click to return.</translation>
    </message>
    <message>
        <source>Task timeline</source>
        <translation>Task timeline</translation>
    </message>
</context>
</TS>
