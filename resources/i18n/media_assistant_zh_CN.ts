<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AccountEditor</name>
    <message>
        <source>Add a web account</source>
        <translation>添加网页账号</translation>
    </message>
    <message>
        <source>Add an API account</source>
        <translation>添加 API 账号</translation>
    </message>
    <message>
        <source>Account %1</source>
        <translation>账号 %1</translation>
    </message>
    <message>
        <source>e.g. deepseek-1 (letters, digits, - _ .)</source>
        <translation>例如 deepseek-1（字母、数字、- _ .）</translation>
    </message>
    <message>
        <source>Name (ID):</source>
        <translation>名称（ID）：</translation>
    </message>
    <message>
        <source>another model name</source>
        <translation>其他模型名称</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Fetch the model list</source>
        <translation>获取模型列表</translation>
    </message>
    <message>
        <source>Ask the endpoint which models it offers</source>
        <translation>向接口查询它提供的模型</translation>
    </message>
    <message>
        <source>Models:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <source>Test connection</source>
        <translation>测试连接</translation>
    </message>
    <message>
        <source>Save and log in</source>
        <translation>保存并登录</translation>
    </message>
    <message>
        <source>Save, then open this account&apos;s browser profile to sign in</source>
        <translation>保存后打开该账号的浏览器配置文件进行登录</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>From an adapter file…</source>
        <translation>从适配器文件…</translation>
    </message>
    <message>
        <source>Chat site:</source>
        <translation>对话网站：</translation>
    </message>
    <message>
        <source>the site&apos;s own address (leave empty)</source>
        <translation>网站自身地址（留空即可）</translation>
    </message>
    <message>
        <source>Only for a self-hosted chat (your company&apos;s Open WebUI) or a test site</source>
        <translation>仅用于自建对话站点（如公司的 Open WebUI）或测试站点</translation>
    </message>
    <message>
        <source>Address:</source>
        <translation>地址：</translation>
    </message>
    <message>
        <source>Base URL:</source>
        <translation>接口地址（Base URL）：</translation>
    </message>
    <message>
        <source>paste the key; it is kept in the system&apos;s keyring</source>
        <translation>粘贴密钥；它保存在系统钥匙串中</translation>
    </message>
    <message>
        <source>leave empty to keep the stored key</source>
        <translation>留空则保留已保存的密钥</translation>
    </message>
    <message>
        <source>API key:</source>
        <translation>API 密钥：</translation>
    </message>
    <message>
        <source>optional: an environment variable with the key</source>
        <translation>可选：存放密钥的环境变量名</translation>
    </message>
    <message>
        <source>Key variable:</source>
        <translation>密钥变量：</translation>
    </message>
    <message>
        <source>Requests in flight at once (1..5)</source>
        <translation>同时进行的请求数（1..5）</translation>
    </message>
    <message>
        <source>Concurrency:</source>
        <translation>并发数：</translation>
    </message>
    <message>
        <source>Requests per minute:</source>
        <translation>每分钟请求数：</translation>
    </message>
    <message>
        <source>Tokens per minute:</source>
        <translation>每分钟 Token 数：</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>不限</translation>
    </message>
    <message>
        <source>Site adapter file</source>
        <translation>网站适配器文件</translation>
    </message>
    <message>
        <source>Site adapters (*.toml)</source>
        <translation>网站适配器 (*.toml)</translation>
    </message>
    <message>
        <source>Adapter file: %1</source>
        <translation>适配器文件：%1</translation>
    </message>
    <message>
        <source>Enter the name of the variable that holds the key</source>
        <translation>请填写保存密钥的环境变量名</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>正在保存…</translation>
    </message>
</context>
<context>
    <name>AccountProblem</name>
    <message>
        <source>A captcha or challenge needs a person: solve it in its browser</source>
        <translation>出现验证码或安全验证，需要人工处理：请在该账号的浏览器中完成</translation>
    </message>
    <message>
        <source>Its browser profile is in use by another program</source>
        <translation>浏览器配置文件正被其他程序占用</translation>
    </message>
    <message>
        <source>Its proxy cannot be reached (or cannot reach the site): it waits and tries again by itself</source>
        <translation>无法连接它的代理（或代理无法访问网站）：账号暂停，稍后会自动重试</translation>
    </message>
    <message>
        <source>Its proxy refused the user name or password (407): store the right proxy password</source>
        <translation>代理拒绝了用户名或密码（407）：请保存正确的代理密码</translation>
    </message>
    <message>
        <source>Its proxy needs a password: store it in the account&apos;s settings</source>
        <translation>它的代理需要密码：请在账号设置中保存代理密码</translation>
    </message>
    <message>
        <source>It cannot start: check its settings (see the tooltip)</source>
        <translation>无法启动：请检查该账号的设置（详见提示）</translation>
    </message>
    <message>
        <source>The site&apos;s page changed (see the tooltip): install a fixed adapter file, then Reset</source>
        <translation>网站页面已改版（详见提示）：安装修正后的适配文件，然后重置</translation>
    </message>
    <message>
        <source>Signed out: press Log in and sign in again</source>
        <translation>已退出登录：请点击“登录”重新登录</translation>
    </message>
    <message>
        <source>The API key was rejected: store a valid key</source>
        <translation>API 密钥被拒绝：请保存有效的密钥</translation>
    </message>
    <message>
        <source>Needs a look (see the tooltip)</source>
        <translation>需要查看（详见提示）</translation>
    </message>
</context>
<context>
    <name>AccountState</name>
    <message>
        <source>Working</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>Switched off</source>
        <translation>已停用</translation>
    </message>
    <message>
        <source>Cooling down</source>
        <translation>冷却中</translation>
    </message>
    <message>
        <source>Needs login</source>
        <translation>需要登录</translation>
    </message>
    <message>
        <source>Key rejected</source>
        <translation>密钥被拒绝</translation>
    </message>
    <message>
        <source>Needs attention</source>
        <translation>需要处理</translation>
    </message>
</context>
<context>
    <name>AccountsPanel</name>
    <message>
        <source>Account</source>
        <translation>账号</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>On</source>
        <translation>启用</translation>
    </message>
    <message>
        <source>No accounts yet: press “Accounts…” in the toolbar to add one.</source>
        <translation>还没有账号：点击工具栏中的“账号…”添加。</translation>
    </message>
    <message>
        <source>Give this account work</source>
        <translation>给此账号分配任务</translation>
    </message>
    <message>
        <source>Log in</source>
        <translation>登录</translation>
    </message>
    <message>
        <source>Open this account&apos;s browser profile to sign in</source>
        <translation>打开此账号专用的浏览器窗口进行登录</translation>
    </message>
    <message>
        <source>×</source>
        <translation>×</translation>
    </message>
    <message>
        <source>Requests in flight (1..5)</source>
        <translation>并发请求数（1～5）</translation>
    </message>
    <message>
        <source>Through one proxy (%1): %2</source>
        <translation>共用同一代理（%1）：%2</translation>
    </message>
    <message>
        <source>%1 are web accounts of %2 behind one proxy: the site may ban them together, whatever their pacing; give each its own proxy</source>
        <translation>%1 是 %2 的网页账号，却共用同一代理：无论节奏如何设置，网站都可能把它们一起封禁；请为每个账号各配一个代理</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>finishing the current task</source>
        <translation>正在完成当前任务</translation>
    </message>
    <message>
        <source>Repair…</source>
        <translation>修复…</translation>
    </message>
    <message>
        <source>Find the changed element on its page from what worked before, prove it with a site check, then offer to install it</source>
        <translation>根据以前成功时记下的页面元素，在当前页面上找到改动后的元素，用网站检查验证通过后再询问是否安装</translation>
    </message>
    <message>
        <source>%1 reset: its problem and cool-down are cleared; it starts afresh with its next task</source>
        <translation>%1 已重置：问题和冷却已清除，下一个任务起重新开始</translation>
    </message>
    <message>
        <source>pacing: ready</source>
        <translation>节奏：可以开始</translation>
    </message>
    <message>
        <source>Account %1 paused</source>
        <translation>账号 %1 已暂停</translation>
    </message>
    <message>
        <source>Resume %1</source>
        <translation>恢复 %1</translation>
    </message>
    <message>
        <source>Pause %1 (its current task finishes)</source>
        <translation>暂停 %1（当前任务会完成）</translation>
    </message>
    <message>
        <source>Reset %1</source>
        <translation>重置 %1</translation>
    </message>
    <message>
        <source>Clear its problem and cool-down and start it afresh (a new key or a fixed adapter is picked up)</source>
        <translation>清除其问题和冷却，重新启动（会使用新的密钥或修复后的适配器）</translation>
    </message>
    <message>
        <source>Check site</source>
        <translation>检查网站</translation>
    </message>
    <message>
        <source>One short prompt through its chat page, every step reported (after its current task, when its pacing allows)</source>
        <translation>通过它的聊天页面发送一条简短提示，逐步报告每一步（在当前任务之后、节奏允许时进行）</translation>
    </message>
    <message>
        <source>Install adapter file…</source>
        <translation>安装适配文件…</translation>
    </message>
    <message>
        <source>Accounts and models…</source>
        <translation>账号和模型…</translation>
    </message>
</context>
<context>
    <name>AdapterStep</name>
    <message>
        <source>through the proxy</source>
        <translation>经由代理连通</translation>
    </message>
    <message>
        <source>page loaded</source>
        <translation>页面已加载</translation>
    </message>
    <message>
        <source>signed in</source>
        <translation>已登录</translation>
    </message>
    <message>
        <source>composer found</source>
        <translation>找到输入框</translation>
    </message>
    <message>
        <source>text entered and read back</source>
        <translation>已输入并回读文字</translation>
    </message>
    <message>
        <source>sent</source>
        <translation>已发送</translation>
    </message>
    <message>
        <source>generating seen</source>
        <translation>看到生成中</translation>
    </message>
    <message>
        <source>done seen</source>
        <translation>看到完成标记</translation>
    </message>
    <message>
        <source>answer read</source>
        <translation>已读取回答</translation>
    </message>
    <message>
        <source>Markdown rebuilt</source>
        <translation>已还原 Markdown</translation>
    </message>
    <message>
        <source>new chat</source>
        <translation>新对话</translation>
    </message>
</context>
<context>
    <name>ApiChecks</name>
    <message>
        <source>Waiting for the system keyring (unlock it if it asks)…</source>
        <translation>正在等待系统密钥环（如弹出提示，请解锁）…</translation>
    </message>
    <message>
        <source>no system keyring on this computer</source>
        <translation>本机没有系统密钥环</translation>
    </message>
    <message>
        <source>e.g. %1</source>
        <translation>例如 %1</translation>
    </message>
    <message>
        <source>This computer has no system keyring to keep the key in: put the key in an environment variable and enter its name below.</source>
        <translation>本机没有可保存密钥的系统密钥环：请把密钥放进一个环境变量，并在下方填写变量名。</translation>
    </message>
    <message>
        <source>The system keyring did not answer (locked?): unlock it and save again, or put the key in an environment variable and enter its name below.</source>
        <translation>系统密钥环没有响应（可能已锁定）：请解锁后再次保存，或把密钥放进环境变量，并在下方填写变量名。</translation>
    </message>
    <message>
        <source>The system keyring refused the key (locked?): unlock it and save again, or put the key in an environment variable and enter its name below.</source>
        <translation>系统密钥环拒绝保存密钥（可能已锁定）：请解锁后再次保存，或把密钥放进环境变量，并在下方填写变量名。</translation>
    </message>
    <message>
        <source>Enter the name of the variable that holds the key</source>
        <translation>请填写存放密钥的环境变量名</translation>
    </message>
    <message>
        <source>Paste the API key first</source>
        <translation>请先粘贴 API 密钥</translation>
    </message>
    <message>
        <source>Enter the base URL first</source>
        <translation>请先填写接口地址</translation>
    </message>
    <message>
        <source>Asking %1 for its models…</source>
        <translation>正在向 %1 查询模型…</translation>
    </message>
    <message>
        <source>This endpoint does not list its models: type the model name below</source>
        <translation>该接口不提供模型列表：请在下方输入模型名称</translation>
    </message>
    <message numerus="yes">
        <source>%n model(s) offered: tick the ones this account should serve</source>
        <translation>
            <numerusform>共提供 %n 个模型：请勾选该账号要使用的模型</numerusform>
        </translation>
    </message>
    <message>
        <source>Choose a model to test with</source>
        <translation>请选择一个用于测试的模型</translation>
    </message>
    <message>
        <source>Sending one short request to %1…</source>
        <translation>正在向 %1 发送一条简短请求…</translation>
    </message>
    <message>
        <source>Connected: %1 answered in %2 s: “%3”</source>
        <translation>已连接：%1 用时 %2 秒回答：“%3”</translation>
    </message>
    <message>
        <source>The variable %1 is not set in this app&apos;s environment. Set it for your user, then quit Media Assistant and start it again. Windows: in a Command Prompt type `setx %1 your-key` (or System → Advanced system settings → Environment Variables → New). Linux: add the line `export %1=your-key` to ~/.profile, then log out and in again.</source>
        <translation>本程序的运行环境中没有环境变量 %1。请为当前用户设置它，然后退出本程序并重新打开。Windows：在命令提示符中输入 `setx %1 你的密钥`（或：系统 → 高级系统设置 → 环境变量 → 新建）。Linux：在 ~/.profile 中加入一行 `export %1=你的密钥`，然后注销并重新登录。</translation>
    </message>
</context>
<context>
    <name>App</name>
    <message>
        <source>Media Assistant</source>
        <translation>AI 智能媒体助理</translation>
    </message>
    <message>
        <source>The disk is full; the task database cannot be opened:

%1

Free some space, then start Media Assistant again.</source>
        <translation>磁盘已满，无法打开任务数据库：

%1

请清理一些空间，然后重新启动 AI 智能媒体助理。</translation>
    </message>
    <message>
        <source>The team database cannot be reached:

%1

Check the network and the team database&apos;s address, then start Media Assistant again.</source>
        <translation>无法连接团队数据库：

%1

请检查网络和团队数据库的地址，然后重新启动 AI 智能媒体助理。</translation>
    </message>
    <message>
        <source>The task database is held by another program:

%1</source>
        <translation>任务数据库正被其他程序占用：

%1</translation>
    </message>
    <message>
        <source>The configuration cannot be used:

%1</source>
        <translation>配置文件无法使用：

%1</translation>
    </message>
    <message>
        <source>Media Assistant is already running</source>
        <translation>AI 智能媒体助理已在运行</translation>
    </message>
    <message>
        <source>Another Media Assistant is working on this data folder:
%1

Switch to its window, or close it first.</source>
        <translation>另一个 AI 智能媒体助理正在使用此数据文件夹：
%1

请切换到它的窗口，或先将它关闭。</translation>
    </message>
    <message>
        <source>Shutting down: running tasks go back to the queue…</source>
        <translation>正在退出：运行中的任务将放回队列…</translation>
    </message>
    <message>
        <source>The workstation name %1 is in use by Media Assistant on host %2 (this PC is %3): two PCs, or two data folders, cannot share a name. No task runs here.

Give this PC a name of its own on the Team database page of the set-up window, then restart.</source>
        <translation>工作站名称 %1 正被主机 %2 上的 AI 智能媒体助理使用（本机是 %3）：两台电脑或两个数据文件夹不能共用一个名称。本机不会运行任何任务。

请在设置窗口的“团队数据库”页为本机另起一个名称，然后重新启动。</translation>
    </message>
    <message>
        <source>Something went wrong inside the app; your tasks are safe and work goes on. If it happens again, send a support bundle (Help menu). The details are in the log: %1</source>
        <translation>程序内部出了点问题；任务都安全，工作会继续。如果再次出现，请生成支持包（“帮助”菜单）发给技术支持。详细信息在日志中：%1</translation>
    </message>
</context>
<context>
    <name>BatchFilePage</name>
    <message>
        <source>Drop a CSV, XLSX or JSONL file here</source>
        <translation>将 CSV、XLSX 或 JSONL 文件拖到这里</translation>
    </message>
    <message>
        <source>&amp;Choose file…</source>
        <translation>选择文件(&amp;C)…</translation>
    </message>
    <message>
        <source>C&amp;hoose another…</source>
        <translation>更换文件(&amp;H)…</translation>
    </message>
    <message>
        <source>Prompt from the file&apos;s prompt column</source>
        <translation>使用文件中的提示词列</translation>
    </message>
    <message>
        <source>Prompt from a template:</source>
        <translation>用模板生成提示词：</translation>
    </message>
    <message>
        <source>The prompt with {column} placeholders, e.g. Write an article about {topic}</source>
        <translation>含 {列名} 占位符的提示词，例如：写一篇关于{主题}的文章</translation>
    </message>
    <message>
        <source>Insert column:</source>
        <translation>插入列：</translation>
    </message>
    <message>
        <source>What each task is called in the task list (its title)</source>
        <translation>每个任务在任务列表中显示的名称（标题）</translation>
    </message>
    <message>
        <source>Title column:</source>
        <translation>标题列：</translation>
    </message>
    <message>
        <source>Prompts of the first rows:</source>
        <translation>前几行生成的提示词：</translation>
    </message>
    <message>
        <source>Reading…</source>
        <translation>正在读取…</translation>
    </message>
    <message numerus="yes">
        <source>%n row(s)</source>
        <translation>
            <numerusform>共 %n 行</numerusform>
        </translation>
    </message>
    <message>
        <source>Insert this column into the template at the cursor</source>
        <translation>在模板的光标处插入此列</translation>
    </message>
    <message>
        <source>(none: the prompt&apos;s beginning)</source>
        <translation>（无：显示提示词开头）</translation>
    </message>
    <message>
        <source>Prompt from the file&apos;s prompt column (this file has none)</source>
        <translation>使用文件中的提示词列（此文件没有该列）</translation>
    </message>
    <message>
        <source>Choose a file.</source>
        <translation>请选择文件。</translation>
    </message>
    <message>
        <source>Write a template, or insert a column below.</source>
        <translation>请填写模板，或在下方插入列。</translation>
    </message>
    <message>
        <source>Not a column of this file: %1</source>
        <translation>文件中没有这些列：%1</translation>
    </message>
    <message>
        <source>Choose a batch file</source>
        <translation>选择批次文件</translation>
    </message>
    <message>
        <source>Batch files (%1);;All files (*)</source>
        <translation>批次文件 (%1);;所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>BatchList</name>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Retry failed…</source>
        <translation>重试失败任务…</translation>
    </message>
    <message>
        <source>Priority</source>
        <translation>优先级</translation>
    </message>
    <message>
        <source>Move to the top</source>
        <translation>移到最前</translation>
    </message>
    <message>
        <source>Move to the bottom</source>
        <translation>移到最后</translation>
    </message>
    <message>
        <source>Set priority…</source>
        <translation>设置优先级…</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Batches</source>
        <translation>批次</translation>
    </message>
    <message>
        <source>All batches</source>
        <translation>全部批次</translation>
    </message>
    <message>
        <source>All batches · %1</source>
        <translation>全部批次 · %1</translation>
    </message>
    <message numerus="yes">
        <source>%n failed</source>
        <translation>
            <numerusform>%n 个失败</numerusform>
        </translation>
    </message>
    <message>
        <source>Choose a batch in the list first</source>
        <translation>请先在列表中选择一个批次</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Start this batch&apos;s waiting tasks again</source>
        <translation>让该批次等待中的任务继续开始</translation>
    </message>
    <message>
        <source>Start nothing new from this batch; running tasks finish</source>
        <translation>不再开始该批次的新任务；运行中的任务会完成</translation>
    </message>
    <message>
        <source>Every task of this batch has finished</source>
        <translation>该批次的任务都已结束</translation>
    </message>
    <message>
        <source>Cancel every unfinished task of this batch</source>
        <translation>取消该批次所有未完成的任务</translation>
    </message>
    <message>
        <source>Run this batch&apos;s failed tasks again</source>
        <translation>重新运行该批次失败的任务</translation>
    </message>
    <message>
        <source>No task of this batch failed</source>
        <translation>该批次没有失败的任务</translation>
    </message>
    <message>
        <source>Run this batch&apos;s waiting tasks sooner or later</source>
        <translation>让该批次等待中的任务提前或推后运行</translation>
    </message>
    <message>
        <source>No task of this batch is waiting</source>
        <translation>该批次没有等待中的任务</translation>
    </message>
    <message>
        <source>Write this batch&apos;s tasks to a file</source>
        <translation>把该批次的任务写入文件</translation>
    </message>
    <message>
        <source>This batch has no tasks</source>
        <translation>该批次没有任务</translation>
    </message>
</context>
<context>
    <name>BatchListModel</name>
    <message>
        <source>Batch</source>
        <translation>批次</translation>
    </message>
    <message>
        <source>Source file</source>
        <translation>来源文件</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>创建时间</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <source>ETA</source>
        <translation>预计完成</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Share</source>
        <translation>份额</translation>
    </message>
    <message>
        <source>All batches</source>
        <translation>全部批次</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1%</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>Pausing after the current task</source>
        <translation>当前任务完成后暂停</translation>
    </message>
    <message>
        <source>After %1 + %2</source>
        <comment>a start time of day + how long it takes</comment>
        <translation>%1 开始，约 %2</translation>
    </message>
    <message>
        <source>Scheduled %1</source>
        <translation>定时 %1</translation>
    </message>
    <message>
        <source>%1 (about %2)</source>
        <translation>%1（约 %2）</translation>
    </message>
    <message>
        <source>No account can take it now</source>
        <translation>目前没有账号可以处理</translation>
    </message>
    <message>
        <source>After the first result</source>
        <translation>首个结果出来后估算</translation>
    </message>
    <message>
        <source>Batch id: %1</source>
        <translation>批次 ID：%1</translation>
    </message>
    <message>
        <source>Its part of the team&apos;s accounts while every unfinished batch has work waiting (urgent, normal and low work by their weights, then each operator equally, then each batch by its share). The ETA counts with it.</source>
        <translation>在所有未完成的批次都有任务排队时，它能分到的团队账号份额（先按紧急、普通、低优先级的权重分配，再在操作员之间平分，最后按各批次的份额分配）。预计完成时间按这个份额计算。</translation>
    </message>
    <message>
        <source>%1 running · %2 waiting · %3 done · %4 failed</source>
        <translation>%1 运行中 · %2 等待中 · %3 成功 · %4 失败</translation>
    </message>
</context>
<context>
    <name>BatchOptionsForm</name>
    <message>
        <source>No models are configured</source>
        <translation>尚未配置模型</translation>
    </message>
    <message>
        <source>Above 0 is urgent, 0 normal, below 0 low. While all three have work waiting they share the accounts by the weights in [scheduling] (70/25/5 by default); a class alone gets everything.</source>
        <translation>大于 0 为紧急，0 为普通，小于 0 为低优先级。三类都有任务排队时，按配置文件里设定的权重分配账号（默认 70/25/5）；只有一类有任务时，它独占全部账号。</translation>
    </message>
    <message>
        <source>above 0: urgent · below 0: low</source>
        <translation>大于 0：紧急 · 小于 0：低</translation>
    </message>
    <message>
        <source>The batch&apos;s weight among your batches: 2 gets twice what each of your other batches gets. Your colleagues&apos; batches keep their part.</source>
        <translation>本批次在您的各批次之间的权重：设为 2 时，得到的份额是您其他每个批次的两倍。同事的批次不受影响，份额照旧。</translation>
    </message>
    <message>
        <source>1 = as much as each of your other batches</source>
        <translation>1 = 与您的其他批次相同</translation>
    </message>
    <message>
        <source>&amp;System prompt (optional)</source>
        <translation>系统提示词（可选）(&amp;S)</translation>
    </message>
    <message>
        <source>S&amp;tart at</source>
        <translation>开始时间(&amp;T)</translation>
    </message>
    <message>
        <source>Nothing of the batch starts before this time</source>
        <translation>在此时间之前，该批次的任务都不会开始</translation>
    </message>
    <message>
        <source>&amp;Only between</source>
        <translation>仅在时段内运行(&amp;O)</translation>
    </message>
    <message>
        <source>Tasks start only inside these hours each day (e.g. night runs)</source>
        <translation>任务每天只在这个时段内开始（例如夜间运行）</translation>
    </message>
    <message>
        <source>and</source>
        <translation>至</translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation>模型(&amp;M)：</translation>
    </message>
    <message>
        <source>P&amp;riority:</source>
        <translation>优先级(&amp;R)：</translation>
    </message>
    <message>
        <source>S&amp;hare:</source>
        <translation>份额(&amp;H)：</translation>
    </message>
    <message>
        <source>&amp;Batch id:</source>
        <translation>批次 ID(&amp;B)：</translation>
    </message>
    <message>
        <source>Schedule:</source>
        <translation>计划：</translation>
    </message>
    <message>
        <source>The active hours start and end at the same time.</source>
        <translation>运行时段的开始和结束时间相同。</translation>
    </message>
    <message>
        <source>The file has a model column: it wins; rows that leave it empty use this one.</source>
        <translation>文件中有模型列，以该列为准；该列为空的行使用这里选的模型。</translation>
    </message>
    <message>
        <source>Taken from the file&apos;s priority column (empty cells count as 0).</source>
        <translation>取自文件的优先级列（空单元格按 0 计）。</translation>
    </message>
    <message>
        <source>Rows with their own system_prompt keep it.</source>
        <translation>自带 system_prompt 的行保留各自的系统提示词。</translation>
    </message>
    <message>
        <source>This model is sent only the prompt: no system prompt.</source>
        <translation>此模型只发送提示词，不发送系统提示词。</translation>
    </message>
    <message>
        <source>Web model: the system prompt is typed into the chat page as text.</source>
        <translation>网页版模型：系统提示词会作为普通文字输入聊天页面。</translation>
    </message>
</context>
<context>
    <name>BrowserDownloadDialog</name>
    <message>
        <source>Downloading a browser</source>
        <translation>正在下载浏览器</translation>
    </message>
    <message>
        <source>Starting the download…</source>
        <translation>正在开始下载…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Downloading %1
%2% of %3</source>
        <translation>正在下载 %1
已完成 %2%，共 %3</translation>
    </message>
    <message>
        <source>No browser for web models</source>
        <translation>没有可供网页模型使用的浏览器</translation>
    </message>
    <message>
        <source>This computer has no Microsoft Edge, Google Chrome or Chromium for the web accounts. Media Assistant can download Chromium for them (about 150 MB, once).

Download it now? API accounts work either way.</source>
        <translation>这台电脑上没有可供网页账号使用的 Microsoft Edge、Google Chrome 或 Chromium。AI 智能媒体助理可以为它们下载 Chromium（约 150 MB，只需一次）。

现在下载吗？接口账号不受影响，照常工作。</translation>
    </message>
    <message>
        <source>Download Chromium</source>
        <translation>下载 Chromium</translation>
    </message>
    <message>
        <source>Not now</source>
        <translation>暂不下载</translation>
    </message>
    <message>
        <source>The browser download failed</source>
        <translation>浏览器下载失败</translation>
    </message>
    <message>
        <source>Chromium could not be downloaded. Check the internet connection (or install Microsoft Edge or Google Chrome) and start Media Assistant again.</source>
        <translation>无法下载 Chromium。请检查网络连接（或安装 Microsoft Edge、Google Chrome），然后重新启动 AI 智能媒体助理。</translation>
    </message>
</context>
<context>
    <name>ConfigProblem</name>
    <message>
        <source>web</source>
        <translation>网页</translation>
    </message>
    <message>
        <source>API</source>
        <translation>API</translation>
    </message>
    <message>
        <source>Required</source>
        <translation>必填</translation>
    </message>
    <message>
        <source>Unknown setting</source>
        <translation>未知的设置项</translation>
    </message>
    <message>
        <source>Enter a whole number</source>
        <translation>请输入整数</translation>
    </message>
    <message>
        <source>Enter a number</source>
        <translation>请输入数字</translation>
    </message>
    <message>
        <source>Choose yes or no</source>
        <translation>请选择是或否</translation>
    </message>
    <message>
        <source>Enter text</source>
        <translation>请输入文字</translation>
    </message>
    <message>
        <source>Enter a list</source>
        <translation>请输入列表</translation>
    </message>
    <message>
        <source>Use lower-case letters, digits, - and _ only, no spaces</source>
        <translation>只能使用小写字母、数字、- 和 _，不能有空格</translation>
    </message>
    <message>
        <source>Must be at least %1</source>
        <translation>不能小于 %1</translation>
    </message>
    <message>
        <source>Must be more than %1</source>
        <translation>必须大于 %1</translation>
    </message>
    <message>
        <source>Must be at most %1</source>
        <translation>不能大于 %1</translation>
    </message>
    <message>
        <source>Must be less than %1</source>
        <translation>必须小于 %1</translation>
    </message>
    <message>
        <source>Choose one of: %1</source>
        <translation>请从以下选项中选择：%1</translation>
    </message>
    <message>
        <source>Use letters, digits and - _ . only (no spaces), starting with a letter or digit</source>
        <translation>只能使用字母、数字和 - _ .（不能有空格），并以字母或数字开头</translation>
    </message>
    <message>
        <source>Windows cannot use this name for a folder: not CON, PRN, AUX, NUL, COM1-9 or LPT1-9, and not ending in a dot</source>
        <translation>Windows 无法用这个名字建文件夹：不能是 CON、PRN、AUX、NUL、COM1-9 或 LPT1-9，也不能以英文句点结尾</translation>
    </message>
    <message>
        <source>Choose at least one model for this account</source>
        <translation>请为此账号至少选择一个模型</translation>
    </message>
    <message>
        <source>Choose a site, or a site adapter file (not both)</source>
        <translation>请选择一个站点，或一个站点适配器文件（二选一）</translation>
    </message>
    <message>
        <source>The address must start with http:// or https://</source>
        <translation>地址必须以 http:// 或 https:// 开头</translation>
    </message>
    <message>
        <source>An API account needs its base URL</source>
        <translation>API 账号需要填写接口地址（base URL）</translation>
    </message>
    <message>
        <source>Only API accounts have this setting</source>
        <translation>只有 API 账号有此设置</translation>
    </message>
    <message>
        <source>Only web accounts have this setting</source>
        <translation>只有网页账号有此设置</translation>
    </message>
    <message>
        <source>This looks like the API key itself. Paste the key into the key field (it goes to the system keyring); here goes only the name of an environment variable that holds it, such as DEEPSEEK_API_KEY</source>
        <translation>这看起来是 API 密钥本身。请把密钥粘贴到“密钥”栏（它会存入系统钥匙串）；这里只填保存密钥的环境变量名，例如 DEEPSEEK_API_KEY</translation>
    </message>
    <message>
        <source>The name of an environment variable: letters, digits and _, not starting with a digit (such as DEEPSEEK_API_KEY)</source>
        <translation>环境变量名：只能使用字母、数字和 _，且不能以数字开头（例如 DEEPSEEK_API_KEY）</translation>
    </message>
    <message>
        <source>There is already a model named %1</source>
        <translation>已有名为 %1 的模型</translation>
    </message>
    <message>
        <source>There is already an account named %1</source>
        <translation>已有名为 %1 的账号</translation>
    </message>
    <message>
        <source>%1 and %2 differ only in capital letters: on Windows and macOS they would share one browser profile. Choose another name</source>
        <translation>%1 和 %2 只有大小写不同：在 Windows 和 macOS 上它们会共用同一个浏览器配置文件夹。请换一个名称</translation>
    </message>
    <message>
        <source>There is no model named %1</source>
        <translation>没有名为 %1 的模型</translation>
    </message>
    <message>
        <source>%1 is a %2 model; this account cannot serve it</source>
        <translation>%1 是%2模型，此账号不能使用它</translation>
    </message>
    <message>
        <source>No account serves model %1: add it to an account&apos;s models</source>
        <translation>没有账号使用模型 %1：请把它加入某个账号的模型</translation>
    </message>
    <message>
        <source>A model cannot fall back to itself</source>
        <translation>模型不能回退到它自己</translation>
    </message>
    <message>
        <source>%1 and %2 would fall back to each other</source>
        <translation>%1 和 %2 会互相回退</translation>
    </message>
    <message>
        <source>Write the hours as 08:00-23:00 (24-hour clock)</source>
        <translation>时间请写成 08:00-23:00（24 小时制）</translation>
    </message>
    <message>
        <source>24:00 is the latest time</source>
        <translation>最晚只能是 24:00</translation>
    </message>
    <message>
        <source>The start and the end are the same time</source>
        <translation>开始和结束是同一时间</translation>
    </message>
    <message>
        <source>A task is declared dead only after at least two heartbeats</source>
        <translation>至少要间隔两次心跳才能判定任务失联</translation>
    </message>
    <message>
        <source>At most %1 characters</source>
        <translation>最多 %1 个字符</translation>
    </message>
    <message>
        <source>The team database&apos;s address must start with postgresql:// (for example postgresql://ma@db.local:5432/media)</source>
        <translation>团队数据库的地址必须以 postgresql:// 开头（例如 postgresql://ma@db.local:5432/media）</translation>
    </message>
    <message>
        <source>The address holds a password: take it out (it is not shown here) and type it in the password field, which keeps it in the system keyring; or use PGPASSWORD or the pgpass file</source>
        <translation>地址中含有密码：请把它删掉（此处不会显示），改为填在“密码”栏中，它会存入系统钥匙串；或者使用 PGPASSWORD 或 pgpass 文件</translation>
    </message>
    <message>
        <source>A proxy is http://HOST:PORT, https://HOST:PORT or socks5://HOST:PORT (a user name may come first: http://USER@HOST:PORT); empty to go direct</source>
        <translation>代理的写法是 http://主机:端口、https://主机:端口 或 socks5://主机:端口（前面可加用户名：http://用户名@主机:端口）；留空表示直连</translation>
    </message>
    <message>
        <source>The proxy needs a host and a port, e.g. http://10.0.0.5:3128</source>
        <translation>代理需要主机和端口，例如 http://10.0.0.5:3128</translation>
    </message>
    <message>
        <source>The proxy holds a password: take it out (it is not shown here) and type it in the proxy password field, which keeps it in the system keyring</source>
        <translation>代理地址中含有密码：请删去（此处不显示），并在“代理密码”一栏输入，密码会保存在系统钥匙串中</translation>
    </message>
    <message>
        <source>Name an environment variable here, not the password itself</source>
        <translation>这里应填写环境变量的名称，而不是密码本身</translation>
    </message>
    <message>
        <source>A proxy password needs a user name: http://USER@HOST:PORT</source>
        <translation>代理密码需要配合用户名使用：http://用户名@主机:端口</translation>
    </message>
    <message>
        <source>Not a host name, IP address or network (10.0.0.0/8): %1</source>
        <translation>不是有效的主机名、网络地址或网段（如 10.0.0.0/8）：%1</translation>
    </message>
    <message>
        <source>The browser cannot sign in to a SOCKS5 proxy with a user name and password: use an HTTP or HTTPS proxy with the password, or a SOCKS5 proxy that needs none</source>
        <translation>浏览器无法使用用户名和密码登录 SOCKS5 代理：请改用带密码的 HTTP 或 HTTPS 代理，或无需密码的 SOCKS5 代理</translation>
    </message>
    <message>
        <source>The site adapter cannot be used: %1</source>
        <translation>站点适配器无法使用：%1</translation>
    </message>
    <message>
        <source>The configuration file was changed outside this window meanwhile; nothing was saved, so that change is kept. Save again to add yours to the file as it is now.</source>
        <translation>配置文件在此期间被其他程序（或手动）修改过；本次未保存，以免覆盖那次修改。请再次保存，把您的修改写入当前的文件。</translation>
    </message>
</context>
<context>
    <name>DailyUpkeep</name>
    <message>
        <source>The daily check of the task database found damage:

%1

No backup was made over the good ones. Close Media Assistant and restore the latest backup: media-assistant restore FILE</source>
        <translation>每日检查发现任务数据库已损坏：

%1

没有用它覆盖完好的备份。请关闭 AI 智能媒体助理，然后恢复最新的备份：media-assistant restore 文件</translation>
    </message>
    <message>
        <source>Media Assistant</source>
        <translation>AI 智能媒体助理</translation>
    </message>
</context>
<context>
    <name>DemoBanner</name>
    <message>
        <source>Demo mode: simulated web and API models, a demo data folder of its own. Nothing here touches your real accounts.&lt;br&gt;&lt;b&gt;Press “Run the sample batch” to watch 14 tasks run on both lanes.&lt;/b&gt;</source>
        <translation>演示模式：使用模拟的网页版和接口模型，以及独立的演示数据文件夹，不会动到你的真实账号。&lt;br&gt;&lt;b&gt;点击右侧的“运行示例批次”，观看 14 个任务在两个通道上运行。&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Run the sample batch</source>
        <translation>运行示例批次</translation>
    </message>
    <message>
        <source>Demo mode: the sample batch is running. Watch the lane panels and the table; double-click a finished task to read its result.</source>
        <translation>演示模式：示例批次正在运行。请留意通道面板和任务表；双击已完成的任务即可查看结果。</translation>
    </message>
    <message>
        <source>Run it again</source>
        <translation>再运行一次</translation>
    </message>
    <message>
        <source>Demo mode: the sample batch has finished. Double-click a task to read its result, export them, or run the batch again.</source>
        <translation>演示模式：示例批次已完成。双击任务即可查看结果，也可以导出结果或再运行一次。</translation>
    </message>
</context>
<context>
    <name>DiskFullBanner</name>
    <message>
        <source>&lt;b&gt;Disk full&lt;/b&gt;: %1 free on %2. No new task starts until there is space.</source>
        <translation>&lt;b&gt;磁盘已满&lt;/b&gt;：%2 仅剩 %1 可用空间。腾出空间之前不会开始新任务。</translation>
    </message>
    <message numerus="yes">
        <source>%n answer(s) already received are kept and will be written then.</source>
        <translation>
            <numerusform>已收到的 %n 个回答已保留，届时会写入。</numerusform>
        </translation>
    </message>
    <message>
        <source>Free some space: the work goes on by itself.</source>
        <translation>请清理一些空间，工作会自动继续。</translation>
    </message>
</context>
<context>
    <name>Duration</name>
    <message>
        <source>%1s</source>
        <comment>seconds</comment>
        <translation>%1秒</translation>
    </message>
    <message>
        <source>%1m%2s</source>
        <comment>minutes, seconds</comment>
        <translation>%1分%2秒</translation>
    </message>
    <message>
        <source>%1h%2m</source>
        <comment>hours, minutes</comment>
        <translation>%1小时%2分</translation>
    </message>
</context>
<context>
    <name>ErrorKind</name>
    <message>
        <source>API key rejected</source>
        <translation>密钥被拒绝</translation>
    </message>
    <message>
        <source>Request refused as invalid</source>
        <translation>请求无效，已被拒绝</translation>
    </message>
    <message>
        <source>Prompt too long for the model</source>
        <translation>提示词超出模型长度限制</translation>
    </message>
    <message>
        <source>Blocked by the content policy</source>
        <translation>被内容安全策略拦截</translation>
    </message>
    <message>
        <source>Quota used up</source>
        <translation>额度已用完</translation>
    </message>
    <message>
        <source>Login required</source>
        <translation>需要重新登录</translation>
    </message>
    <message>
        <source>Bad input</source>
        <translation>输入有误</translation>
    </message>
    <message>
        <source>Configuration problem</source>
        <translation>配置有误</translation>
    </message>
    <message>
        <source>Browser profile in use by another program</source>
        <translation>浏览器配置被其他程序占用</translation>
    </message>
    <message>
        <source>No enabled account serves this model</source>
        <translation>没有已启用的账号支持此模型</translation>
    </message>
    <message>
        <source>Deadline passed while waiting</source>
        <translation>等待超过截止时间</translation>
    </message>
    <message>
        <source>Rate limited</source>
        <translation>触发限流</translation>
    </message>
    <message>
        <source>Site busy</source>
        <translation>网站繁忙</translation>
    </message>
    <message>
        <source>Captcha to solve</source>
        <translation>需要完成验证码</translation>
    </message>
    <message>
        <source>An earlier answer of this account is still running on the site</source>
        <translation>该账号之前的回答仍在网站上生成</translation>
    </message>
    <message>
        <source>The site&apos;s page changed</source>
        <translation>网站页面已改版</translation>
    </message>
    <message>
        <source>Proxy unreachable</source>
        <translation>代理无法连接</translation>
    </message>
    <message>
        <source>Proxy refused the password</source>
        <translation>代理拒绝了密码</translation>
    </message>
    <message>
        <source>Server error</source>
        <translation>服务器错误</translation>
    </message>
    <message>
        <source>Network error</source>
        <translation>网络错误</translation>
    </message>
    <message>
        <source>Timed out</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>Malformed response</source>
        <translation>响应格式异常</translation>
    </message>
    <message>
        <source>Two answers overlapped in one chat session</source>
        <translation>同一会话中回答重叠</translation>
    </message>
    <message>
        <source>Browser crashed</source>
        <translation>浏览器崩溃</translation>
    </message>
    <message>
        <source>Heartbeat lost</source>
        <translation>心跳丢失</translation>
    </message>
    <message>
        <source>Answer turned down by the quality gate</source>
        <translation>回答未通过质量检查</translation>
    </message>
    <message>
        <source>Internal error</source>
        <translation>内部错误</translation>
    </message>
    <message>
        <source>Canceled</source>
        <translation>已取消</translation>
    </message>
</context>
<context>
    <name>EventLogModel</name>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Attempt</source>
        <translation>尝试</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
</context>
<context>
    <name>EventLogView</name>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
</context>
<context>
    <name>EventText</name>
    <message>
        <source>attempt %1 of %2 (retry %3)</source>
        <translation>第 %1 次尝试（共 %2 次，第 %3 轮重试）</translation>
    </message>
    <message>
        <source>attempt %1 of %2</source>
        <translation>第 %1 次尝试（共 %2 次）</translation>
    </message>
    <message>
        <source>not started yet (retry %1)</source>
        <translation>尚未开始（第 %1 轮重试）</translation>
    </message>
    <message>
        <source>not started yet</source>
        <translation>尚未开始</translation>
    </message>
    <message>
        <source>%1 of %2 (retry %3)</source>
        <translation>第 %1 次，共 %2 次（第 %3 轮重试）</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>第 %1 次，共 %2 次</translation>
    </message>
    <message>
        <source>retry %1</source>
        <translation>第 %1 轮重试</translation>
    </message>
    <message>
        <source>%1/%2 · retry %3</source>
        <translation>%1/%2 · 重试 %3</translation>
    </message>
    <message>
        <source>back in the queue</source>
        <translation>已回到队列</translation>
    </message>
    <message>
        <source>no attempts left: the task failed</source>
        <translation>没有剩余尝试次数，任务失败</translation>
    </message>
    <message>
        <source>canceled, as you asked</source>
        <translation>已按您的要求取消</translation>
    </message>
    <message>
        <source>Attempt %1 lost: the app that ran it stopped unexpectedly; %2</source>
        <translation>第 %1 次尝试丢失：运行它的程序意外停止；%2</translation>
    </message>
    <message>
        <source>Attempt %1 lost: no heartbeat for %2; %3</source>
        <translation>第 %1 次尝试丢失：%2 没有心跳；%3</translation>
    </message>
    <message>
        <source>another attempt follows</source>
        <translation>将再试一次</translation>
    </message>
    <message>
        <source>the task goes to %1</source>
        <translation>任务转给 %1</translation>
    </message>
    <message>
        <source>Answer turned down by the quality gate: %1; %2</source>
        <translation>回答未通过质量检查：%1；%2</translation>
    </message>
    <message>
        <source>Self-check: stopped a leftover browser</source>
        <translation>自检：已停止残留的浏览器</translation>
    </message>
    <message>
        <source>Self-check: could not stop a leftover browser</source>
        <translation>自检：无法停止残留的浏览器</translation>
    </message>
    <message>
        <source>Self-check: cleared a stale profile lock</source>
        <translation>自检：已清除过期的配置文件锁</translation>
    </message>
    <message>
        <source>Self-check: the browser profile is held by another program</source>
        <translation>自检：浏览器配置文件被其他程序占用</translation>
    </message>
    <message>
        <source>Self-check: the browser profile is locked by another computer</source>
        <translation>自检：浏览器配置文件被另一台电脑锁定</translation>
    </message>
    <message>
        <source>Self-check: see the details</source>
        <translation>自检：请查看详情</translation>
    </message>
    <message>
        <source>Request sent to %1 (with a system prompt)</source>
        <translation>已向 %1 发送请求（含系统提示词）</translation>
    </message>
    <message>
        <source>Request sent to %1 (system prompt left out for this model)</source>
        <translation>已向 %1 发送请求（该模型不发送系统提示词）</translation>
    </message>
    <message>
        <source>Request sent to %1</source>
        <translation>已向 %1 发送请求</translation>
    </message>
    <message>
        <source>Answer received: %1 characters</source>
        <translation>已收到回答：%1 个字符</translation>
    </message>
    <message>
        <source>; cut at the model&apos;s length limit</source>
        <translation>；在模型的长度上限处被截断</translation>
    </message>
    <message>
        <source>%1 started on %2</source>
        <translation>%1 在 %2 上开始</translation>
    </message>
    <message>
        <source>%1 failed (%2); next attempt in %3</source>
        <translation>%1 失败（%2）；%3 后再试</translation>
    </message>
    <message>
        <source>Submitted in batch %1</source>
        <translation>已提交到批次 %1</translation>
    </message>
    <message>
        <source>Canceled before it started</source>
        <translation>开始前已取消</translation>
    </message>
    <message>
        <source>Cancel requested: it stops at its next checkpoint</source>
        <translation>已请求取消：将在下一个检查点停止</translation>
    </message>
    <message>
        <source>Retry requested with an edited prompt (retry %1)</source>
        <translation>已用修改后的提示词请求重试（第 %1 轮）</translation>
    </message>
    <message>
        <source>Retry requested (retry %1)</source>
        <translation>已请求重试（第 %1 轮）</translation>
    </message>
    <message>
        <source>Priority set to %1</source>
        <translation>优先级设为 %1</translation>
    </message>
    <message>
        <source>Succeeded: %1 characters in %2</source>
        <translation>成功：%1 个字符，用时 %2</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <source>Failed: %1 on every attempt (%2 attempts on %3 account(s)); not retried again</source>
        <translation>失败：每次尝试都是 %1（%3 个账号上共 %2 次尝试），不再重试</translation>
    </message>
    <message>
        <source>%1: the account rests %2; the task waits (no attempt used)</source>
        <translation>%1：账号暂停 %2，任务等待（不计尝试次数）</translation>
    </message>
    <message>
        <source>Canceled while running, as you asked</source>
        <translation>运行中已按您的要求取消</translation>
    </message>
    <message>
        <source>Back in the queue: the app was closed (no attempt used)</source>
        <translation>应用已关闭，任务回到队列（不计尝试次数）</translation>
    </message>
    <message>
        <source>Back in the queue: the team database could not be reached for %1 (no attempt used)</source>
        <translation>团队数据库连续 %1 无法连接，任务已回到队列（不计尝试次数）</translation>
    </message>
    <message>
        <source>Answer held %1 while the team database was unreachable</source>
        <translation>团队数据库无法连接，回答在本机暂存了 %1</translation>
    </message>
    <message>
        <source>Back in the queue: %1 was switched off as it took the task</source>
        <translation>%1 在接手任务时被关闭，任务回到队列</translation>
    </message>
    <message>
        <source>Back in the queue: the lane was stopping</source>
        <translation>通道正在停止，任务回到队列</translation>
    </message>
    <message>
        <source>An answer this account started %1 ago (task %2) may still be generating on the site: looking before sending</source>
        <translation>此账号 %1前发起的回答（任务 %2）可能仍在网站上生成：发送前先查看</translation>
    </message>
    <message>
        <source>Its conversation is unknown; going on (until it can have ended, a failure does not use an attempt)</source>
        <translation>它的对话未知，继续进行（在它可能结束之前，失败不计尝试次数）</translation>
    </message>
    <message>
        <source>The site adapter cannot tell whether it still runs; going on (until it can have ended, a failure does not use an attempt)</source>
        <translation>网站适配无法判断它是否仍在运行，继续进行（在它可能结束之前，失败不计尝试次数）</translation>
    </message>
    <message>
        <source>It was still generating: stopped it</source>
        <translation>它仍在生成：已停止</translation>
    </message>
    <message>
        <source>It had ended</source>
        <translation>它已结束</translation>
    </message>
    <message>
        <source>Its page shows no conversation; going on</source>
        <translation>其页面没有显示对话；继续</translation>
    </message>
    <message>
        <source>Could not look at its page; going on</source>
        <translation>无法查看其页面；继续</translation>
    </message>
    <message>
        <source>Browser started (process %1)</source>
        <translation>浏览器已启动（进程 %1）</translation>
    </message>
    <message>
        <source>The new-chat button gave no empty chat within %1: the page was loaded instead (slower; check the site adapter)</source>
        <translation>新建对话按钮在 %1 内没有打开空白对话：已改为重新加载页面（较慢；请检查站点适配器）</translation>
    </message>
    <message>
        <source>Cancel: clicked the page&apos;s stop button</source>
        <translation>取消：已点击页面上的停止按钮</translation>
    </message>
    <message>
        <source>Cancel: the page showed no stop button</source>
        <translation>取消：页面上没有停止按钮</translation>
    </message>
    <message>
        <source>The site kept generating: its browser was closed</source>
        <translation>网站仍在生成：已关闭它的浏览器</translation>
    </message>
    <message>
        <source>Answer taken without a done marker: site adapter %1 may be outdated</source>
        <translation>未见完成标记即采用了回答：站点适配器 %1 可能已过时</translation>
    </message>
    <message>
        <source>The adapter&apos;s Markdown source was empty: the answer was rebuilt from the page</source>
        <translation>适配器的 Markdown 来源为空：已根据页面重建回答</translation>
    </message>
    <message>
        <source>A screenshot and the page at step “%1” were saved for diagnosis (redacted)</source>
        <translation>已保存步骤“%1”时的截图和页面以供诊断（已脱敏）</translation>
    </message>
    <message>
        <source>A screenshot and the page were saved for diagnosis</source>
        <translation>已保存截图和页面，供诊断使用</translation>
    </message>
    <message>
        <source>Site adapter step “%1” failed (%2 in a row; the second pauses the account)</source>
        <translation>网站适配步骤“%1”失败（连续第 %2 次；第二次将暂停该账号）</translation>
    </message>
    <message>
        <source>The site&apos;s page changed at step “%1”: %2 waits for you; the task waits (no attempt used)</source>
        <translation>网站页面在步骤“%1”处已改版：%2 等待您处理；任务在队列中等待（不计尝试次数）</translation>
    </message>
    <message>
        <source>Pacing: %1; the account rests %2</source>
        <translation>节奏控制：%1；账号休息 %2</translation>
    </message>
    <message>
        <source>Risk guard: %1 risk signals in a row; the account is paused until %2</source>
        <translation>风险保护：连续 %1 次风险信号，账号暂停到 %2</translation>
    </message>
</context>
<context>
    <name>ExportDialog</name>
    <message>
        <source>Export tasks</source>
        <translation>导出任务</translation>
    </message>
    <message numerus="yes">
        <source>The %n task(s) the table shows</source>
        <translation>
            <numerusform>表格当前显示的 %n 个任务</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The %n task(s) in the table</source>
        <translation>
            <numerusform>表格中的 %n 个任务</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The %n selected task(s)</source>
        <translation>
            <numerusform>选中的 %n 个任务</numerusform>
        </translation>
    </message>
    <message>
        <source>Selected tasks (none selected)</source>
        <translation>选中的任务（未选中任何任务）</translation>
    </message>
    <message>
        <source>Select tasks in the table first</source>
        <translation>请先在表格中选择任务</translation>
    </message>
    <message>
        <source>Batch:</source>
        <translation>批次：</translation>
    </message>
    <message>
        <source>Every task in the store</source>
        <translation>全部任务</translation>
    </message>
    <message>
        <source>Excel workbook (.xlsx)</source>
        <translation>Excel 工作簿 (.xlsx)</translation>
    </message>
    <message>
        <source>Word document (.docx), one heading per task</source>
        <translation>Word 文档 (.docx)，每个任务一个标题</translation>
    </message>
    <message>
        <source>CSV (.csv)</source>
        <translation>CSV (.csv)</translation>
    </message>
    <message>
        <source>Markdown, one file (.md)</source>
        <translation>Markdown，单个文件 (.md)</translation>
    </message>
    <message>
        <source>Markdown folder, one file per task</source>
        <translation>Markdown 文件夹，每个任务一个文件</translation>
    </message>
    <message>
        <source>JSON lines (.jsonl)</source>
        <translation>JSON Lines (.jsonl)</translation>
    </message>
    <message>
        <source>Chinese (中文)</source>
        <translation>中文</translation>
    </message>
    <message>
        <source>English (field names)</source>
        <translation>英文（字段名）</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Tasks:</source>
        <translation>任务：</translation>
    </message>
    <message>
        <source>Format:</source>
        <translation>格式：</translation>
    </message>
    <message>
        <source>Column names:</source>
        <translation>列名：</translation>
    </message>
    <message>
        <source>Save to:</source>
        <translation>保存到：</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Folder to create the export in</source>
        <translation>导出到哪个文件夹</translation>
    </message>
</context>
<context>
    <name>FirstStartDialog</name>
    <message>
        <source>Media Assistant</source>
        <translation>AI 智能媒体助理</translation>
    </message>
    <message>
        <source>Welcome to Media Assistant</source>
        <translation>欢迎使用 AI 智能媒体助理</translation>
    </message>
    <message>
        <source>No accounts are set up yet.&lt;br&gt;&lt;br&gt;&lt;b&gt;Try the demo&lt;/b&gt; to see the app at work first: a simulated chat site and API, with sample tasks. Nothing to set up, and nothing leaves this computer.&lt;br&gt;&lt;br&gt;&lt;b&gt;Set up accounts&lt;/b&gt; to add the chat sites you sign in to and the API keys your team uses, in a few clicks.</source>
        <translation>还没有设置任何账号。&lt;br&gt;&lt;br&gt;&lt;b&gt;试用演示&lt;/b&gt;：先看看应用如何工作——模拟的对话网站和 API，附带示例任务。无需任何设置，数据不会离开这台电脑。&lt;br&gt;&lt;br&gt;&lt;b&gt;设置账号&lt;/b&gt;：几步即可添加您登录的对话网站和团队使用的 API 密钥。</translation>
    </message>
    <message>
        <source>Your data folder: %1</source>
        <translation>您的数据文件夹：%1</translation>
    </message>
    <message>
        <source>Try the demo</source>
        <translation>试用演示</translation>
    </message>
    <message>
        <source>Set up accounts</source>
        <translation>设置账号</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
</context>
<context>
    <name>HelpActions</name>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>Create support bundle…</source>
        <translation>生成支持诊断包…</translation>
    </message>
    <message>
        <source>About Media Assistant</source>
        <translation>关于 AI 智能媒体助理</translation>
    </message>
    <message>
        <source>Create support bundle</source>
        <translation>生成支持诊断包</translation>
    </message>
    <message>
        <source>Zip archive (*.zip)</source>
        <translation>Zip 压缩包 (*.zip)</translation>
    </message>
    <message>
        <source>Creating the support bundle…</source>
        <translation>正在生成支持诊断包…</translation>
    </message>
    <message>
        <source>Support bundle failed</source>
        <translation>支持诊断包生成失败</translation>
    </message>
    <message>
        <source>Support bundle written to %1. Secrets (API keys, webhook addresses) were removed; send it to whoever helps you.</source>
        <translation>支持诊断包已保存到 %1。其中的密钥（API 密钥、Webhook 地址）已移除，可以发给为你提供支持的人。</translation>
    </message>
    <message>
        <source>Support bundle created</source>
        <translation>支持诊断包已生成</translation>
    </message>
    <message>
        <source>Media Assistant %1</source>
        <translation>AI 智能媒体助理 %1</translation>
    </message>
</context>
<context>
    <name>JobRunner</name>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>Labels</name>
    <message>
        <source>%1: %2</source>
        <comment>error kind: the site&apos;s error message</comment>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>Near the rate limit</source>
        <translation>接近速率上限</translation>
    </message>
    <message>
        <source>%1, %2 left</source>
        <comment>cool-down reason, time left</comment>
        <translation>%1，剩余 %2</translation>
    </message>
</context>
<context>
    <name>Lane</name>
    <message>
        <source>Web</source>
        <translation>网页版</translation>
    </message>
    <message>
        <source>API</source>
        <translation>接口</translation>
    </message>
    <message>
        <source>Web lane</source>
        <translation>网页版通道</translation>
    </message>
    <message>
        <source>API lane</source>
        <translation>接口通道</translation>
    </message>
</context>
<context>
    <name>LanePanel</name>
    <message>
        <source>%1 of %2 done</source>
        <translation>已完成 %1 / %2</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <comment>accounts · free slots</comment>
        <translation>%1 · %2</translation>
    </message>
    <message numerus="yes">
        <source>%n account(s)</source>
        <translation>
            <numerusform>%n 个账号</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n slot(s) free</source>
        <translation>
            <numerusform>%n 个空闲槽位</numerusform>
        </translation>
    </message>
    <message>
        <source>Pausing after the current task</source>
        <translation>当前任务完成后暂停</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>%1/min</source>
        <translation>%1 个/分钟</translation>
    </message>
    <message>
        <source>Idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>Scheduled %1</source>
        <translation>定时 %1</translation>
    </message>
    <message>
        <source>This batch: ETA %1 (about %2)</source>
        <translation>本批次：预计 %1（约 %2）</translation>
    </message>
    <message>
        <source>After %1 + %2</source>
        <comment>a start time of day + how long it takes</comment>
        <translation>%1 开始，约 %2</translation>
    </message>
    <message numerus="yes">
        <source>Paused: %n task(s) wait</source>
        <translation>
            <numerusform>已暂停：%n 个任务等待中</numerusform>
        </translation>
    </message>
    <message>
        <source>ETA %1 (about %2)</source>
        <translation>预计剩余 %1（约 %2 完成）</translation>
    </message>
    <message>
        <source>ETA: no account can take these tasks now</source>
        <translation>预计时间：目前没有账号能处理这些任务</translation>
    </message>
    <message>
        <source>%1: served on %2, which cannot take it now</source>
        <translation>%1：由 %2 上的账号处理，但它现在无法接手</translation>
    </message>
    <message>
        <source>%1: served on %2</source>
        <translation>%1：由 %2 上的账号处理</translation>
    </message>
    <message>
        <source>ETA after the first task finishes</source>
        <translation>首个任务完成后给出预计时间</translation>
    </message>
    <message>
        <source>Resume this lane</source>
        <translation>恢复此通道</translation>
    </message>
    <message>
        <source>Pause this lane: running tasks finish</source>
        <translation>暂停此通道：运行中的任务会完成</translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) without a heartbeat for 90 s</source>
        <translation>
            <numerusform>%n 个任务已 90 秒无心跳</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) without a heartbeat for 30 s</source>
        <translation>
            <numerusform>%n 个任务已 30 秒无心跳</numerusform>
        </translation>
    </message>
    <message>
        <source>no available account for: %1</source>
        <translation>以下模型没有可用账号：%1</translation>
    </message>
</context>
<context>
    <name>LogPanel</name>
    <message>
        <source>The full report is in the app&apos;s log file (Help → Create support bundle…).</source>
        <translation>完整报告在应用的日志文件中（帮助 → 创建支持包…）。</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Info</source>
        <translation>信息</translation>
    </message>
    <message>
        <source>All lines</source>
        <translation>全部日志</translation>
    </message>
    <message>
        <source>Info and up</source>
        <translation>信息及以上</translation>
    </message>
    <message>
        <source>Warnings and errors</source>
        <translation>警告和错误</translation>
    </message>
    <message>
        <source>Errors only</source>
        <translation>仅错误</translation>
    </message>
    <message>
        <source>Filter log…</source>
        <translation>筛选日志…</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Media Assistant</source>
        <translation>AI 智能媒体助理</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>Notifications</source>
        <translation>通知</translation>
    </message>
    <message>
        <source>Last 5 minutes</source>
        <translation>最近 5 分钟</translation>
    </message>
    <message>
        <source>Last 15 minutes</source>
        <translation>最近 15 分钟</translation>
    </message>
    <message>
        <source>Last hour</source>
        <translation>最近 1 小时</translation>
    </message>
    <message>
        <source>Last 4 hours</source>
        <translation>最近 4 小时</translation>
    </message>
    <message>
        <source>Span:</source>
        <translation>时间范围：</translation>
    </message>
    <message>
        <source>Actions</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>New batch…</source>
        <translation>新建批次…</translation>
    </message>
    <message>
        <source>Accounts…</source>
        <translation>账号…</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>Metrics</source>
        <translation>运行指标</translation>
    </message>
    <message>
        <source>%1: %2/%3 done — Media Assistant</source>
        <comment>batch: done/total</comment>
        <translation>%1：已完成 %2/%3 — AI 智能媒体助理</translation>
    </message>
    <message>
        <source>%1/%2 done — Media Assistant</source>
        <translation>已完成 %1/%2 — AI 智能媒体助理</translation>
    </message>
    <message>
        <source>Batch %1 is not in this queue any more</source>
        <translation>批次 %1 已不在此队列中</translation>
    </message>
    <message>
        <source>Account %1 is not set up in this queue any more</source>
        <translation>此队列中已没有账号 %1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <comment>notice title: text</comment>
        <translation>%1：%2</translation>
    </message>
    <message numerus="yes">
        <source>; %n already present, not added again</source>
        <translation>
            <numerusform>；%n 个已存在，未重复添加</numerusform>
        </translation>
    </message>
    <message>
        <source>Batch %1 submitted</source>
        <translation>批次 %1 已提交</translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) added</source>
        <translation>
            <numerusform>新增 %n 个任务</numerusform>
        </translation>
    </message>
    <message>
        <source>Notifications (%1)</source>
        <translation>通知（%1）</translation>
    </message>
    <message>
        <source>Sign in to %1 in the browser window, then close it</source>
        <translation>请在浏览器窗口中登录 %1，完成后关闭该窗口</translation>
    </message>
    <message>
        <source>Self-check: all clear</source>
        <translation>自检：一切正常</translation>
    </message>
    <message numerus="yes">
        <source>Self-check: %n finding(s) — see the log</source>
        <translation>
            <numerusform>自检：发现 %n 个问题，详见日志</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MetricsWindow</name>
    <message>
        <source>Metrics</source>
        <translation>运行指标</translation>
    </message>
    <message>
        <source>Last 15 minutes</source>
        <translation>最近 15 分钟</translation>
    </message>
    <message>
        <source>Last hour</source>
        <translation>最近 1 小时</translation>
    </message>
    <message>
        <source>Today</source>
        <translation>今天</translation>
    </message>
    <message>
        <source>All workstations of the team</source>
        <translation>团队全部工作站</translation>
    </message>
    <message>
        <source>This workstation</source>
        <translation>本工作站</translation>
    </message>
    <message>
        <source>Times: p50 / p90 / p99 in seconds</source>
        <translation>时间列为 P50 / P90 / P99（秒）</translation>
    </message>
    <message>
        <source>Lane</source>
        <translation>通道</translation>
    </message>
    <message>
        <source>Ended</source>
        <translation>已结束</translation>
    </message>
    <message>
        <source>Per minute</source>
        <translation>每分钟</translation>
    </message>
    <message>
        <source>Wait (s)</source>
        <translation>排队等待</translation>
    </message>
    <message>
        <source>Generation (s)</source>
        <translation>生成耗时</translation>
    </message>
    <message>
        <source>End to end (s)</source>
        <translation>端到端</translation>
    </message>
    <message>
        <source>Timeouts</source>
        <translation>超时率</translation>
    </message>
    <message>
        <source>Failures</source>
        <translation>失败率</translation>
    </message>
    <message>
        <source>Deferrals</source>
        <translation>延后率</translation>
    </message>
    <message>
        <source>Backlog</source>
        <translation>积压</translation>
    </message>
    <message>
        <source>Account</source>
        <translation>账号</translation>
    </message>
    <message>
        <source>Busy</source>
        <translation>忙碌占比</translation>
    </message>
    <message>
        <source>Requests/min</source>
        <translation>每分钟请求</translation>
    </message>
    <message>
        <source>Tokens/min</source>
        <translation>每分钟 Token</translation>
    </message>
    <message>
        <source>In flight</source>
        <translation>并发</translation>
    </message>
    <message>
        <source>Finished per minute, today</source>
        <translation>今日每分钟完成数</translation>
    </message>
    <message>
        <source>tasks/min</source>
        <translation>任务/分钟</translation>
    </message>
    <message>
        <source>p90 end to end, today</source>
        <translation>今日端到端 P90</translation>
    </message>
    <message>
        <source>minutes</source>
        <translation>分钟</translation>
    </message>
    <message>
        <source>Busy share per account</source>
        <translation>各账号忙碌占比</translation>
    </message>
    <message>
        <source>%</source>
        <translation>%</translation>
    </message>
    <message>
        <source>API quota use, today</source>
        <translation>今日 API 配额用量</translation>
    </message>
    <message>
        <source>% of limit</source>
        <translation>占限额 %</translation>
    </message>
    <message>
        <source>Span:</source>
        <translation>时间范围：</translation>
    </message>
    <message>
        <source>Web</source>
        <translation>网页版</translation>
    </message>
    <message>
        <source>API</source>
        <translation>接口</translation>
    </message>
    <message>
        <source>Updated %1</source>
        <translation>更新于 %1</translation>
    </message>
    <message>
        <source>No alarm</source>
        <translation>无告警</translation>
    </message>
    <message>
        <source>timeouts</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>failures and deferrals</source>
        <translation>失败和延后</translation>
    </message>
    <message>
        <source>quota use</source>
        <translation>配额用量</translation>
    </message>
    <message>
        <source>backlog growing</source>
        <translation>积压增长</translation>
    </message>
    <message>
        <source>p90 end to end</source>
        <translation>端到端 P90</translation>
    </message>
    <message>
        <source>Alarms: %1</source>
        <translation>告警：%1</translation>
    </message>
    <message>
        <source>limit</source>
        <translation>限额</translation>
    </message>
    <message>
        <source>alarm</source>
        <translation>告警线</translation>
    </message>
</context>
<context>
    <name>ModelEditor</name>
    <message>
        <source>Model %1</source>
        <translation>模型 %1</translation>
    </message>
    <message>
        <source>Kind:</source>
        <translation>类型：</translation>
    </message>
    <message>
        <source>Served by:</source>
        <translation>使用的账号：</translation>
    </message>
    <message>
        <source>Send only the user&apos;s text (reasoning models)</source>
        <translation>只发送用户的内容（推理模型）</translation>
    </message>
    <message>
        <source>No system prompt or preset text is sent: reasoning models answer better</source>
        <translation>不发送系统提示词或预设文字：推理模型回答得更好</translation>
    </message>
    <message>
        <source>the same as the name</source>
        <translation>与名称相同</translation>
    </message>
    <message>
        <source>The model&apos;s name at the provider, when it differs from the name used here</source>
        <translation>模型在服务商处的名称（与此处名称不同时填写）</translation>
    </message>
    <message>
        <source>Name at the provider:</source>
        <translation>服务商处的名称：</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Default system prompt:</source>
        <translation>默认系统提示词：</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>NewBatchDialog</name>
    <message>
        <source>New batch</source>
        <translation>新建批次</translation>
    </message>
    <message>
        <source>&amp;Paste prompts</source>
        <translation>粘贴提示词(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Import file</source>
        <translation>导入文件(&amp;I)</translation>
    </message>
    <message>
        <source>One prompt per line. Empty lines are skipped.</source>
        <translation>每行一条提示词，空行会被跳过。</translation>
    </message>
    <message numerus="yes">
        <source>%n prompt(s)</source>
        <translation>
            <numerusform>%n 条提示词</numerusform>
        </translation>
    </message>
    <message>
        <source>Reading the file…</source>
        <translation>正在读取文件…</translation>
    </message>
    <message>
        <source>Submit</source>
        <translation>提交</translation>
    </message>
    <message>
        <source>Submit the batch (Ctrl+Enter)</source>
        <translation>提交批次（Ctrl+Enter）</translation>
    </message>
    <message>
        <source>No models are configured.</source>
        <translation>尚未配置模型。</translation>
    </message>
    <message>
        <source>Enter a batch id.</source>
        <translation>请输入批次 ID。</translation>
    </message>
    <message>
        <source>Paste at least one prompt.</source>
        <translation>请至少粘贴一条提示词。</translation>
    </message>
    <message>
        <source>This file cannot be used:</source>
        <translation>此文件无法使用：</translation>
    </message>
    <message>
        <source>Nothing was submitted. Fix these problems and try again:</source>
        <translation>未提交任何任务。请修正以下问题后重试：</translation>
    </message>
</context>
<context>
    <name>NoticeWords</name>
    <message>
        <source>Batch %1 finished</source>
        <translation>批次 %1 已完成</translation>
    </message>
    <message>
        <source>Batch %1 ended with failures</source>
        <translation>批次 %1 已结束，有失败的任务</translation>
    </message>
    <message>
        <source>Account %1: the site&apos;s page changed</source>
        <translation>账号 %1：网站页面已改版</translation>
    </message>
    <message>
        <source>Account %1 needs you</source>
        <translation>账号 %1 需要处理</translation>
    </message>
    <message>
        <source>Task %1 failed the same way every time</source>
        <translation>任务 %1 每次都以同样的方式失败</translation>
    </message>
    <message>
        <source>Disk almost full</source>
        <translation>磁盘空间不足</translation>
    </message>
    <message>
        <source>web</source>
        <translation>网页版</translation>
    </message>
    <message>
        <source>API</source>
        <translation>接口</translation>
    </message>
    <message>
        <source>Too many timeouts on the %1 lane</source>
        <translation>%1通道超时过多</translation>
    </message>
    <message>
        <source>Too many failures and deferrals on the %1 lane</source>
        <translation>%1通道失败和延后过多</translation>
    </message>
    <message>
        <source>API account %1 is near its quota</source>
        <translation>API 账号 %1 的配额快用完了</translation>
    </message>
    <message>
        <source>The %1 lane&apos;s backlog keeps growing</source>
        <translation>%1通道积压在增长</translation>
    </message>
    <message>
        <source>Tasks take too long on the %1 lane</source>
        <translation>%1通道任务耗时过长</translation>
    </message>
    <message>
        <source>Alarm: %1</source>
        <translation>告警：%1</translation>
    </message>
    <message>
        <source>Cleared: %1</source>
        <translation>已恢复：%1</translation>
    </message>
    <message>
        <source>Back in bounds</source>
        <translation>已回到阈值以内</translation>
    </message>
    <message>
        <source>From %1 to %2 tasks in %3 min while an account of the lane sat idle</source>
        <translation>最近 %3 分钟积压从 %1 增加到 %2 个任务，而该通道有账号空闲</translation>
    </message>
    <message>
        <source>p90 end to end %1 s in the last %3 min (bound %2 s)</source>
        <translation>最近 %3 分钟端到端 P90 为 %1 秒（上限 %2 秒）</translation>
    </message>
    <message>
        <source>Timeouts: %1 of the attempts in the last %3 min (threshold %2)</source>
        <translation>最近 %3 分钟的尝试中超时占 %1（阈值 %2）</translation>
    </message>
    <message>
        <source>Failures and deferrals: %1 of the attempts in the last %3 min (threshold %2)</source>
        <translation>最近 %3 分钟的尝试中失败和延后占 %1（阈值 %2）</translation>
    </message>
    <message>
        <source>At least %1 of its per-minute limit for %3 min (threshold %2)</source>
        <translation>连续 %3 分钟每分钟用量至少为限额的 %1（阈值 %2）</translation>
    </message>
    <message>
        <source>%1 (threshold %2)</source>
        <translation>%1（阈值 %2）</translation>
    </message>
    <message numerus="yes">
        <source>%n task(s): %1 succeeded, %2 failed, %3 canceled</source>
        <translation>
            <numerusform>共 %n 个任务：成功 %1，失败 %2，取消 %3</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 on %n account(s); not retried again: check its prompt or the site</source>
        <translation>
            <numerusform>在 %n 个账号上都是 %1，不再自动重试：请检查提示词或网站</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 MB free on the disk of %2</source>
        <translation>%2 所在磁盘仅剩 %1 MB</translation>
    </message>
</context>
<context>
    <name>NotificationList</name>
    <message>
        <source>No notifications. Finished batches and accounts that need you show here.</source>
        <translation>暂无通知。批次完成、账号需要处理时会显示在这里。</translation>
    </message>
    <message>
        <source>Mark all read</source>
        <translation>全部标为已读</translation>
    </message>
    <message>
        <source>Clear read</source>
        <translation>清除已读</translation>
    </message>
</context>
<context>
    <name>Pacing</name>
    <message>
        <source>%1 min</source>
        <comment>minutes</comment>
        <translation>%1 分钟</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <comment>hours and minutes</comment>
        <translation>%1 小时 %2 分钟</translation>
    </message>
    <message>
        <source>%1 s</source>
        <comment>seconds</comment>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 h</source>
        <comment>hours</comment>
        <translation>%1 小时</translation>
    </message>
    <message>
        <source>next task in %1</source>
        <translation>%1 后开始下一个任务</translation>
    </message>
    <message>
        <source>window full, next task in %1</source>
        <translation>时间窗已满，%1 后开始下一个任务</translation>
    </message>
    <message>
        <source>cooling down: %1, %2</source>
        <comment>risk kind, time left</comment>
        <translation>冷却中：%1，还剩 %2</translation>
    </message>
    <message>
        <source>paused until %1 (risk signals in a row)</source>
        <translation>暂停至 %1（连续出现风险信号）</translation>
    </message>
    <message>
        <source>paused until %1 (active hours %2)</source>
        <translation>暂停至 %1（工作时段 %2）</translation>
    </message>
    <message>
        <source>daily cap reached, paused until %1</source>
        <translation>已达每日上限，暂停至 %1</translation>
    </message>
    <message>
        <source>%1 of %2 in %3</source>
        <comment>prompts used of the limit, in the window</comment>
        <translation>%3内已用 %1/%2</translation>
    </message>
    <message>
        <source>%1 of %2 today</source>
        <comment>prompts used of the daily cap</comment>
        <translation>今日已用 %1/%2</translation>
    </message>
    <message>
        <source>%1 risk signals in a row (%2): no new tasks until %3</source>
        <translation>连续 %1 次风险信号（%2）：%3 前不再分配新任务</translation>
    </message>
</context>
<context>
    <name>PacingKind</name>
    <message>
        <source>captcha</source>
        <translation>人机验证</translation>
    </message>
    <message>
        <source>rate limit</source>
        <translation>请求限流</translation>
    </message>
    <message>
        <source>site busy</source>
        <translation>网站繁忙</translation>
    </message>
    <message>
        <source>login lost</source>
        <translation>登录失效</translation>
    </message>
    <message>
        <source>site conflict</source>
        <translation>会话冲突</translation>
    </message>
</context>
<context>
    <name>ProxyFields</name>
    <message>
        <source>optional: http://USER@HOST:PORT, https://… or socks5://HOST:PORT</source>
        <translation>可选：http://用户名@主机:端口、https://… 或 socks5://主机:端口</translation>
    </message>
    <message>
        <source>This account&apos;s way out. Empty: the default proxy of every account, if one is set; a proxy per account keeps a site from banning accounts together</source>
        <translation>此账号的出口。留空：使用所有账号的默认代理（如已设置）；每个账号各用一个代理，可避免网站把多个账号一起封禁</translation>
    </message>
    <message>
        <source>Proxy:</source>
        <translation>代理：</translation>
    </message>
    <message>
        <source>the proxy&apos;s password, if it asks for one; kept in the system&apos;s keyring</source>
        <translation>代理密码（如代理需要）；保存在系统钥匙串中</translation>
    </message>
    <message>
        <source>Test proxy</source>
        <translation>测试代理</translation>
    </message>
    <message>
        <source>Connect through the proxy to this account&apos;s site and say what happened</source>
        <translation>经由代理连接此账号的网站，并说明结果</translation>
    </message>
    <message>
        <source>Proxy password:</source>
        <translation>代理密码：</translation>
    </message>
    <message>
        <source>A proxy password needs a user name: http://USER@HOST:PORT</source>
        <translation>代理密码需要配合用户名使用：http://用户名@主机:端口</translation>
    </message>
    <message>
        <source>Testing the proxy…</source>
        <translation>正在测试代理…</translation>
    </message>
    <message>
        <source>No proxy for this account: it goes out directly</source>
        <translation>此账号未使用代理：直接连接</translation>
    </message>
    <message>
        <source>Connected to %1 through the proxy in %2 ms</source>
        <translation>已经由代理连接到 %1，用时 %2 毫秒</translation>
    </message>
    <message>
        <source>The proxy refused the user name or password (407)</source>
        <translation>代理拒绝了用户名或密码（407）</translation>
    </message>
    <message>
        <source>Cannot reach the proxy</source>
        <translation>无法连接代理</translation>
    </message>
    <message>
        <source>The proxy cannot reach the site (%1)</source>
        <translation>代理无法访问网站（%1）</translation>
    </message>
</context>
<context>
    <name>QAbstractFileIconProvider</name>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Drive</source>
        <translation>驱动器</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Alias</source>
        <translation>别名</translation>
    </message>
    <message>
        <source>Shortcut</source>
        <translation>快捷方式</translation>
    </message>
</context>
<context>
    <name>QFileDialog</name>
    <message>
        <source>&amp;Look in:</source>
        <translation>查找范围(&amp;L)：</translation>
    </message>
    <message>
        <source>Files of &amp;type:</source>
        <translation>文件类型(&amp;T)：</translation>
    </message>
</context>
<context>
    <name>QualityRule</name>
    <message>
        <source>answer too short</source>
        <translation>回答过短</translation>
    </message>
    <message>
        <source>the model refused</source>
        <translation>模型拒绝回答</translation>
    </message>
    <message>
        <source>answer cut at the length limit</source>
        <translation>回答在长度上限处被截断</translation>
    </message>
</context>
<context>
    <name>QueueControls</name>
    <message numerus="yes">
        <source>Queue paused: finishing %n running task(s)</source>
        <translation>
            <numerusform>队列已暂停：正在完成 %n 个运行中的任务</numerusform>
        </translation>
    </message>
    <message>
        <source>Queue paused</source>
        <translation>队列已暂停</translation>
    </message>
</context>
<context>
    <name>Reason</name>
    <message>
        <source>Cannot reach the server: nothing answered at that address</source>
        <translation>无法连接服务器：该地址没有响应</translation>
    </message>
    <message>
        <source>The server did not answer within %1 s</source>
        <translation>服务器在 %1 秒内没有响应</translation>
    </message>
    <message>
        <source>The server sent nothing for %1 s</source>
        <translation>服务器 %1 秒内没有发送任何内容</translation>
    </message>
    <message>
        <source>Sending the request took too long</source>
        <translation>发送请求超时</translation>
    </message>
    <message>
        <source>The connection was cut off</source>
        <translation>连接被中断</translation>
    </message>
    <message>
        <source>The server&apos;s answer was not valid HTTP</source>
        <translation>服务器的响应不是有效的 HTTP</translation>
    </message>
    <message>
        <source>The address must start with http:// or https://</source>
        <translation>地址必须以 http:// 或 https:// 开头</translation>
    </message>
    <message>
        <source>No API key: open Accounts…, edit the account and paste its key, or name an environment variable that holds it</source>
        <translation>没有 API 密钥：打开“账号…”，编辑此账号并粘贴密钥，或填写保存密钥的环境变量名</translation>
    </message>
    <message>
        <source>The variable %2 that should hold the API key is not set in this app&apos;s environment: set it for your user, then quit Media Assistant and start it again</source>
        <translation>存放 API 密钥的环境变量 %2 在本程序的运行环境中未设置：请为当前用户设置它，然后退出本程序并重新打开</translation>
    </message>
    <message>
        <source>It needs the built-in simulated site, which this start does not have</source>
        <translation>它需要内置的模拟站点，本次启动没有提供</translation>
    </message>
    <message>
        <source>Its site adapter cannot be used (see the tooltip)</source>
        <translation>站点适配文件无法使用（详见提示）</translation>
    </message>
    <message>
        <source>A model of it names the site&apos;s own model, but its site adapter cannot choose models (see the tooltip)</source>
        <translation>它的某个模型指定了站点自己的模型，但站点适配文件不能选择模型（详见提示）</translation>
    </message>
    <message>
        <source>It could not be started: an internal error (see the tooltip and the log)</source>
        <translation>无法启动：内部错误（详见提示和日志）</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>automatic (Playwright&apos;s Chromium, Chrome/Edge, chromium)</source>
        <translation>自动（Playwright 自带的 Chromium、Chrome/Edge、chromium）</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Show the browser windows of web accounts</source>
        <translation>显示网页账号的浏览器窗口</translation>
    </message>
    <message>
        <source>Off: the browsers work without windows (a PC left running overnight)</source>
        <translation>关闭：浏览器在后台无窗口运行（适合整夜运行的电脑）</translation>
    </message>
    <message>
        <source>System default</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Browser for web models:</source>
        <translation>网页版模型使用的浏览器：</translation>
    </message>
    <message>
        <source>Web task timeout:</source>
        <translation>网页版任务超时：</translation>
    </message>
    <message>
        <source>API task timeout:</source>
        <translation>接口任务超时：</translation>
    </message>
    <message>
        <source>Language:</source>
        <translation>界面语言：</translation>
    </message>
    <message>
        <source>Saved to %1. Language and browser changes apply at the next start.</source>
        <translation>保存到 %1。语言和浏览器的更改在下次启动后生效。</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>Browser executable</source>
        <translation>选择浏览器程序</translation>
    </message>
</context>
<context>
    <name>SetupDialog</name>
    <message>
        <source>Accounts and models</source>
        <translation>账号和模型</translation>
    </message>
    <message>
        <source>Welcome. Add the accounts your team works with, then start a batch.</source>
        <translation>欢迎。请添加团队使用的账号，然后开始一个批次。</translation>
    </message>
    <message>
        <source>A web account is a chat site you sign in to in a browser (one task at a time); an API account is an address and a key (several tasks at once). Changes take effect at once, no restart needed.</source>
        <translation>网页账号是在浏览器中登录的对话网站（一次一个任务）；API 账号是一个接口地址加一个密钥（可同时处理多个任务）。修改立即生效，无需重启。</translation>
    </message>
    <message>
        <source>Account</source>
        <translation>账号</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Add web account…</source>
        <translation>添加网页账号…</translation>
    </message>
    <message>
        <source>Add API account…</source>
        <translation>添加 API 账号…</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>编辑…</translation>
    </message>
    <message>
        <source>Log in</source>
        <translation>登录</translation>
    </message>
    <message>
        <source>Open this account&apos;s browser profile to sign in</source>
        <translation>打开该账号的浏览器配置文件进行登录</translation>
    </message>
    <message>
        <source>Remove…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Accounts</source>
        <translation>账号</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Served by</source>
        <translation>使用的账号</translation>
    </message>
    <message>
        <source>Options</source>
        <translation>选项</translation>
    </message>
    <message>
        <source>Models are added with the accounts that serve them.</source>
        <translation>模型随使用它的账号一起添加。</translation>
    </message>
    <message>
        <source>Team database</source>
        <translation>团队数据库</translation>
    </message>
    <message>
        <source>Saved in %1</source>
        <translation>保存在 %1</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>user&apos;s text only</source>
        <translation>仅用户内容</translation>
    </message>
    <message>
        <source>at the provider: %1</source>
        <translation>服务商处：%1</translation>
    </message>
    <message>
        <source>system prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>%1 saved.</source>
        <translation>%1 已保存。</translation>
    </message>
    <message>
        <source>%1 saved; the scheduler already works with it</source>
        <translation>%1 已保存，调度器已开始使用</translation>
    </message>
    <message>
        <source>Sign in to %1 in the browser window, then close it</source>
        <translation>请在浏览器窗口中登录 %1，然后关闭窗口</translation>
    </message>
    <message>
        <source>Remove account %1? A task it is running finishes first.</source>
        <translation>删除账号 %1？它正在运行的任务会先完成。</translation>
    </message>
    <message>
        <source>Only this account serves %1: removed too.</source>
        <translation>只有该账号使用 %1：一并删除。</translation>
    </message>
    <message>
        <source>%1 removed</source>
        <translation>%1 已删除</translation>
    </message>
    <message>
        <source>%1 is the only model of %2: give it another model first, or remove the account</source>
        <translation>%1 是 %2 唯一的模型：请先为其添加其他模型，或删除该账号</translation>
    </message>
    <message>
        <source>Remove model %1? Its waiting tasks stay in the queue until a model of that name is back.</source>
        <translation>删除模型 %1？它等待中的任务会留在队列中，直到同名模型重新添加。</translation>
    </message>
</context>
<context>
    <name>SignIn</name>
    <message>
        <source>%1: signed in (%2)</source>
        <translation>%1：已登录（%2）</translation>
    </message>
    <message>
        <source>%1: not signed in: the site shows its sign-in</source>
        <translation>%1：未登录：网站显示登录页面</translation>
    </message>
    <message>
        <source>%1: the sign-in window was closed before signing in; nothing changed</source>
        <translation>%1：登录窗口在登录完成前被关闭；账号状态未变</translation>
    </message>
    <message>
        <source>%1: no sign-in in time; the window was closed, nothing changed</source>
        <translation>%1：未在时限内完成登录；已关闭窗口，账号状态未变</translation>
    </message>
    <message>
        <source>%1: cannot reach %2 (check the network); its login is unchanged</source>
        <translation>%1：无法访问 %2（请检查网络）；登录状态未变</translation>
    </message>
    <message>
        <source>%1: the sign-in window could not be opened (%2)</source>
        <translation>%1：无法打开登录窗口（%2）</translation>
    </message>
    <message>
        <source>%1: its browser is still busy with a task; try again when it has finished</source>
        <translation>%1：浏览器仍在执行任务；请在任务结束后再试</translation>
    </message>
    <message>
        <source>%1: its sign-in window is already open</source>
        <translation>%1：登录窗口已经打开</translation>
    </message>
    <message>
        <source>Signing in…</source>
        <translation>正在登录…</translation>
    </message>
</context>
<context>
    <name>SiteActions</name>
    <message>
        <source>&amp;Sites</source>
        <translation>网站(&amp;S)</translation>
    </message>
    <message>
        <source>Install adapter file…</source>
        <translation>安装适配文件…</translation>
    </message>
    <message>
        <source>A fixed site adapter (.toml): checked, then used by the accounts of its site from their next task; the one it replaces is kept</source>
        <translation>修正后的网站适配文件（.toml）：先检查，然后该网站的账号从下一个任务起使用它；被替换的版本会保留</translation>
    </message>
    <message>
        <source>Install adapter file</source>
        <translation>安装适配文件</translation>
    </message>
    <message>
        <source>Site adapter (*.toml)</source>
        <translation>网站适配文件 (*.toml)</translation>
    </message>
    <message>
        <source>Adapter not installed</source>
        <translation>适配文件未安装</translation>
    </message>
    <message>
        <source>%1 was not installed:</source>
        <translation>%1 未安装：</translation>
    </message>
    <message>
        <source>Installed the adapter of site %1, version %2.</source>
        <translation>已安装网站 %1 的适配文件，版本 %2。</translation>
    </message>
    <message>
        <source>It replaces %1, which is kept: `media-assistant sites rollback %2` puts it back.</source>
        <translation>它替换了 %1（已保留）：`media-assistant sites rollback %2` 可恢复。</translation>
    </message>
    <message>
        <source>Adapter installed</source>
        <translation>适配文件已安装</translation>
    </message>
    <message>
        <source>%1 use it from their next task. Check the site now?</source>
        <translation>%1 从下一个任务起使用它。现在检查网站吗？</translation>
    </message>
    <message>
        <source>Check site now</source>
        <translation>现在检查网站</translation>
    </message>
</context>
<context>
    <name>SiteCheckDialog</name>
    <message>
        <source>Check site: %1</source>
        <translation>检查网站：%1</translation>
    </message>
    <message>
        <source>Checking %1: one short prompt through its chat page, after its current task and when its pacing allows a prompt…</source>
        <translation>正在检查 %1：在它的当前任务之后、节奏允许发送提示时，通过聊天页面发送一条简短提示…</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Took</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>What it found</source>
        <translation>发现</translation>
    </message>
    <message>
        <source>%1: every step passed (%2 s).</source>
        <translation>%1：每一步都通过（%2 秒）。</translation>
    </message>
    <message>
        <source>%1: the check failed at “%3” (%2 s).</source>
        <translation>%1：检查在“%3”处失败（%2 秒）。</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>通过</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>跳过</translation>
    </message>
    <message>
        <source>Reset %1</source>
        <translation>重置 %1</translation>
    </message>
</context>
<context>
    <name>SiteFinding</name>
    <message>
        <source>%1 characters with input.method %2, read back equal</source>
        <translation>%1 个字符，%2，回读一致</translation>
    </message>
    <message>
        <source>%1 characters with input.method %2 (not read back: input.verify off)</source>
        <translation>%1 个字符，%2（未回读：input.verify 已关闭）</translation>
    </message>
    <message>
        <source>the send control %1 matched nothing: pressed Enter, and the page showed the message</source>
        <translation>发送按钮 %1 没有匹配到任何元素：改按回车，页面显示了这条消息</translation>
    </message>
    <message>
        <source>clicked %1; the page showed the message</source>
        <translation>点击了 %1，页面显示了这条消息</translation>
    </message>
    <message>
        <source>pressed Enter; the page showed the message</source>
        <translation>按了回车，页面显示了这条消息</translation>
    </message>
    <message>
        <source>the adapter declares no generating indicator</source>
        <translation>适配文件没有声明“正在生成”标志</translation>
    </message>
    <message>
        <source>the adapter declares no done marker (taken when the generating indicator went away)</source>
        <translation>适配文件没有声明完成标志（以“正在生成”标志消失为准）</translation>
    </message>
    <message>
        <source>the adapter declares no done marker (taken when the text held still)</source>
        <translation>适配文件没有声明完成标志（以文字不再变化为准）</translation>
    </message>
    <message>
        <source>%1 matched nothing while the answer was written</source>
        <translation>生成回答期间 %1 没有匹配到任何元素</translation>
    </message>
    <message>
        <source>%1 matched nothing (the answer was taken after %2 s of stable text, done_grace_s)</source>
        <translation>%1 没有匹配到任何元素（文字稳定 %2 秒后取用了回答，done_grace_s）</translation>
    </message>
    <message>
        <source>answer.format = &quot;text&quot;: the text taken as shown</source>
        <translation>适配文件设定了 `answer.format = &quot;text&quot;`：按页面显示的文字取用</translation>
    </message>
    <message>
        <source>the answer&apos;s HTML gave no Markdown</source>
        <translation>回答的 HTML 没有还原出 Markdown</translation>
    </message>
    <message>
        <source>%1 characters of Markdown</source>
        <translation>%1 个字符的 Markdown</translation>
    </message>
    <message>
        <source>the answer had no markup: its text taken as shown</source>
        <translation>回答没有格式标记：按页面显示的文字取用</translation>
    </message>
    <message>
        <source>the adapter declares no New chat control (the page is loaded per task)</source>
        <translation>适配文件没有声明“新对话”控件（每个任务重新加载页面）</translation>
    </message>
    <message>
        <source>%1 gave no empty chat within %2 s</source>
        <translation>%1 在 %2 秒内没有打开空白对话</translation>
    </message>
    <message>
        <source>%1: an empty chat</source>
        <translation>%1：打开了空白对话</translation>
    </message>
    <message>
        <source>no sign-in marker showed (the adapter declares none)</source>
        <translation>没有出现登录提示（适配文件未声明登录标志）</translation>
    </message>
    <message>
        <source>no sign-in marker showed (%1)</source>
        <translation>没有出现登录提示（%1）</translation>
    </message>
    <message>
        <source>passed</source>
        <translation>通过</translation>
    </message>
    <message>
        <source>canceled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>browser or page error: %1</source>
        <translation>浏览器或页面出错：%1</translation>
    </message>
    <message>
        <source>%1 matched nothing (more in the tooltip)</source>
        <translation>%1 没有匹配到任何元素（详见提示）</translation>
    </message>
    <message>
        <source>%1 showed</source>
        <translation>出现了 %1</translation>
    </message>
    <message>
        <source>%1 appeared</source>
        <translation>出现了 %1</translation>
    </message>
    <message>
        <source>%1 visible</source>
        <translation>%1 可见</translation>
    </message>
    <message>
        <source>%1 characters</source>
        <translation>%1 个字符</translation>
    </message>
    <message>
        <source>inserted as text</source>
        <translation>以文本插入</translation>
    </message>
    <message>
        <source>typed key by key</source>
        <translation>逐键输入</translation>
    </message>
    <message>
        <source>filled in</source>
        <translation>直接填入</translation>
    </message>
</context>
<context>
    <name>SiteRepairDialog</name>
    <message>
        <source>Repair site: %1</source>
        <translation>修复网站：%1</translation>
    </message>
    <message>
        <source>Repairing %1 from its page: a few short prompts, after its current task and when its pacing allows…</source>
        <translation>正在根据页面修复 %1：会发送几条简短的提示词，在当前任务结束、节奏限制允许后进行…</translation>
    </message>
    <message>
        <source>Install</source>
        <translation>安装</translation>
    </message>
    <message>
        <source>%1: its page cannot be repaired here.</source>
        <translation>%1：无法在这里修复它的页面。</translation>
    </message>
    <message>
        <source>Proven: a site check passed every step with the repaired adapter (version %1). Install it?</source>
        <translation>已验证：使用修复后的适配器（版本 %1）进行网站检查，每一步都通过了。要安装吗？</translation>
    </message>
    <message>
        <source>Nothing proven; nothing will be installed.</source>
        <translation>没有找到经过验证的修复，不会安装任何内容。</translation>
    </message>
</context>
<context>
    <name>SkippedIdsNotice</name>
    <message>
        <source>Tasks already present</source>
        <translation>任务已存在</translation>
    </message>
    <message numerus="yes">
        <source>Batch %1: %n task(s) with these ids were already present and were not added again:</source>
        <translation>
            <numerusform>批次 %1：以下 %n 个任务 ID 已存在，未重复添加：</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>… and %n more (see the details)</source>
        <translation>
            <numerusform>……还有 %n 个（见详细信息）</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>StoreBanner</name>
    <message>
        <source>&lt;b&gt;Team database unreachable&lt;/b&gt; — reconnecting, %1. No new task starts; running ones go on.</source>
        <translation>&lt;b&gt;无法连接团队数据库&lt;/b&gt; — 正在重新连接，已 %1。不会开始新任务；正在运行的任务继续。</translation>
    </message>
    <message numerus="yes">
        <source>%n answer(s) received are kept and will be written when it answers.</source>
        <translation>
            <numerusform>已收到的 %n 个回答已保留，数据库恢复后会写入。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>StoreRecovery</name>
    <message>
        <source>The task database cannot be opened:

%1</source>
        <translation>无法打开任务数据库：

%1</translation>
    </message>
    <message>
        <source>There is no backup to restore.</source>
        <translation>没有可恢复的备份。</translation>
    </message>
    <message>
        <source>Restore the latest backup, made %1? The damaged file is kept beside it.</source>
        <translation>要恢复最新的备份（创建于 %1）吗？损坏的文件会保留在旁边。</translation>
    </message>
    <message>
        <source>Media Assistant</source>
        <translation>AI 智能媒体助理</translation>
    </message>
    <message>
        <source>Restore backup</source>
        <translation>恢复备份</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>The backup could not be restored:

%1</source>
        <translation>无法恢复备份：

%1</translation>
    </message>
    <message>
        <source>Restoring the backup…</source>
        <translation>正在恢复备份…</translation>
    </message>
</context>
<context>
    <name>TaskActions</name>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancel batch</source>
        <translation>取消批次</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Retry failed…</source>
        <translation>重试失败任务…</translation>
    </message>
    <message>
        <source>Pause all</source>
        <translation>全部暂停</translation>
    </message>
    <message>
        <source>Cancel the selected unfinished tasks</source>
        <translation>取消所选的未完成任务</translation>
    </message>
    <message>
        <source>Select tasks to cancel</source>
        <translation>请选择要取消的任务</translation>
    </message>
    <message>
        <source>The selected tasks have all finished</source>
        <translation>所选任务都已结束</translation>
    </message>
    <message>
        <source>Run the selected failed or canceled tasks again</source>
        <translation>重新运行所选的失败或已取消任务</translation>
    </message>
    <message>
        <source>Select failed or canceled tasks to retry</source>
        <translation>请选择要重试的失败或已取消任务</translation>
    </message>
    <message>
        <source>None of the selected tasks failed or was canceled</source>
        <translation>所选任务中没有失败或已取消的</translation>
    </message>
    <message>
        <source>Cancel every unfinished task of batch %1</source>
        <translation>取消批次 %1 中所有未完成的任务</translation>
    </message>
    <message>
        <source>Choose a batch (in the list or the filter) or one of its tasks</source>
        <translation>请选择一个批次（在列表或筛选中），或选择其中的一个任务</translation>
    </message>
    <message>
        <source>Every task of batch %1 has finished</source>
        <translation>批次 %1 的任务都已结束</translation>
    </message>
    <message>
        <source>Run the failed tasks of batch %1 again (you confirm first)</source>
        <translation>重新运行批次 %1 中失败的任务（会先请您确认）</translation>
    </message>
    <message>
        <source>No task of batch %1 failed</source>
        <translation>批次 %1 中没有失败的任务</translation>
    </message>
    <message>
        <source>Run the failed tasks of all batches again (you confirm first)</source>
        <translation>重新运行所有批次中失败的任务（会先请您确认）</translation>
    </message>
    <message>
        <source>No task has failed</source>
        <translation>没有失败的任务</translation>
    </message>
    <message>
        <source>Write tasks and their results to a file</source>
        <translation>把任务及其结果写入文件</translation>
    </message>
    <message>
        <source>There are no tasks yet</source>
        <translation>还没有任务</translation>
    </message>
    <message>
        <source>Resume all</source>
        <translation>全部恢复</translation>
    </message>
    <message>
        <source>Start new tasks again</source>
        <translation>重新开始新任务</translation>
    </message>
    <message>
        <source>Start no new task anywhere; running tasks finish</source>
        <translation>不再开始任何新任务；运行中的任务会完成</translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) canceled</source>
        <translation>
            <numerusform>已取消 %n 个任务</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n running task(s) will stop at the next checkpoint</source>
        <translation>
            <numerusform>%n 个运行中的任务将在下一个检查点停止</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing to cancel: those tasks had already finished</source>
        <translation>无需取消：这些任务已经结束</translation>
    </message>
    <message>
        <source>; </source>
        <comment>joins parts of a sentence</comment>
        <translation>；</translation>
    </message>
    <message>
        <source>Pick a batch in the list, or select one of its tasks</source>
        <translation>请在列表中选择一个批次，或选择其中的一个任务</translation>
    </message>
    <message numerus="yes">
        <source>Cancel the %n unfinished task(s) of batch %1?</source>
        <translation>
            <numerusform>取消批次 %1 中 %n 个未完成的任务？</numerusform>
        </translation>
    </message>
    <message>
        <source>No failed task of batch %1 can be retried as it is</source>
        <translation>批次 %1 中没有可以原样重试的失败任务</translation>
    </message>
    <message>
        <source>No failed task can be retried as it is</source>
        <translation>没有可以原样重试的失败任务</translation>
    </message>
    <message numerus="yes">
        <source>Run the %n failed task(s) of batch %1 again?</source>
        <translation>
            <numerusform>重新运行批次 %1 中 %n 个失败的任务？</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Run the %n failed task(s) of all batches again?</source>
        <translation>
            <numerusform>重新运行所有批次中 %n 个失败的任务？</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) blocked by the content policy, too long for the model or with bad input are left out: they would fail the same way. Retry them one by one, with an edited prompt, from their details.</source>
        <translation>
            <numerusform>%n 个因内容政策被拦截、超出模型长度或输入有误的任务不会重试：原样重试还会以同样方式失败。请在任务详情中修改提示词后逐个重试。</numerusform>
        </translation>
    </message>
    <message>
        <source>Retry failed tasks</source>
        <translation>重试失败任务</translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) back in the queue</source>
        <translation>
            <numerusform>%n 个任务已重新排队</numerusform>
        </translation>
    </message>
    <message>
        <source>the whole queue</source>
        <translation>整个队列</translation>
    </message>
    <message>
        <source>the %1 lane</source>
        <translation>%1 通道</translation>
    </message>
    <message>
        <source>batch %1</source>
        <translation>批次 %1</translation>
    </message>
    <message>
        <source>account %1</source>
        <translation>账号 %1</translation>
    </message>
    <message>
        <source>Resumed %1</source>
        <translation>已恢复%1</translation>
    </message>
    <message numerus="yes">
        <source>Pausing %1 after the current task (%n running)</source>
        <translation>
            <numerusform>%1将在当前任务完成后暂停（%n 个运行中）</numerusform>
        </translation>
    </message>
    <message>
        <source>Paused %1: nothing new starts</source>
        <translation>已暂停%1：不再开始新任务</translation>
    </message>
    <message>
        <source>Set priority</source>
        <translation>设置优先级</translation>
    </message>
    <message>
        <source>Priority (higher runs first; 0 is normal):</source>
        <translation>优先级（数值越大越先运行；0 为普通）：</translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) now at priority %1</source>
        <translation>
            <numerusform>%n 个任务的优先级已设为 %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>; %n already finished, left as they were</source>
        <translation>
            <numerusform>；%n 个已结束，保持不变</numerusform>
        </translation>
    </message>
    <message>
        <source>Exporting to %1…</source>
        <translation>正在导出到 %1…</translation>
    </message>
    <message>
        <source>Export canceled; nothing was written</source>
        <translation>导出已取消，未写入任何文件</translation>
    </message>
    <message>
        <source>The team database cannot be reached: nothing was exported. Try again once it answers.</source>
        <translation>无法连接团队数据库：没有导出任何内容。请在数据库恢复后重试。</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) written to %1</source>
        <translation>
            <numerusform>已导出 %n 个任务到 %1</numerusform>
        </translation>
    </message>
    <message>
        <source>Export finished</source>
        <translation>导出完成</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <source>No file manager could be started here. The folder is:
%1</source>
        <translation>此电脑上无法打开文件管理器。文件夹位置：
%1</translation>
    </message>
</context>
<context>
    <name>TaskDetailsDialog</name>
    <message>
        <source>&amp;Result</source>
        <translation>结果(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Prompt</source>
        <translation>提示词(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Event log</source>
        <translation>事件日志(&amp;E)</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Edit prompt and retry…</source>
        <translation>修改提示词并重试…</translation>
    </message>
    <message>
        <source>Task %1</source>
        <translation>任务 %1</translation>
    </message>
    <message>
        <source>It has not finished yet</source>
        <translation>任务尚未结束</translation>
    </message>
    <message>
        <source>It succeeded: nothing to retry</source>
        <translation>任务已成功，无需重试</translation>
    </message>
    <message>
        <source>Run this task again (same row, 3 more attempts)</source>
        <translation>重新运行此任务（同一行，再给 3 次尝试）</translation>
    </message>
    <message>
        <source>Change the prompt, then run the task again with it</source>
        <translation>修改提示词，然后用它重新运行任务</translation>
    </message>
    <message>
        <source>Retry with this prompt</source>
        <translation>用此提示词重试</translation>
    </message>
    <message>
        <source>Run the task again with the prompt as edited</source>
        <translation>用修改后的提示词重新运行任务</translation>
    </message>
    <message>
        <source>The prompt cannot be empty</source>
        <translation>提示词不能为空</translation>
    </message>
    <message numerus="yes">
        <source>&amp;Event log (%n)</source>
        <translation>
            <numerusform>事件日志（%n）(&amp;E)</numerusform>
        </translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <source>Lane:</source>
        <translation>通道：</translation>
    </message>
    <message>
        <source>Account:</source>
        <translation>账号：</translation>
    </message>
    <message>
        <source>Attempt:</source>
        <translation>尝试次数：</translation>
    </message>
    <message>
        <source>Started:</source>
        <translation>开始：</translation>
    </message>
    <message>
        <source>Finished:</source>
        <translation>结束：</translation>
    </message>
    <message>
        <source>Duration:</source>
        <translation>耗时：</translation>
    </message>
    <message>
        <source>Priority:</source>
        <translation>优先级：</translation>
    </message>
    <message>
        <source>Task %1 · batch %2</source>
        <translation>任务 %1 · 批次 %2</translation>
    </message>
    <message>
        <source>Canceled, as you asked.</source>
        <translation>已按您的要求取消。</translation>
    </message>
    <message>
        <source>The last attempt failed; another follows: %1</source>
        <translation>上一次尝试失败，将再试一次：%1</translation>
    </message>
    <message>
        <source>%1 so far</source>
        <translation>已用 %1</translation>
    </message>
    <message>
        <source>%1 — cancel requested</source>
        <translation>%1 — 已请求取消</translation>
    </message>
    <message>
        <source>Waiting to retry at %1</source>
        <translation>将于 %1 重试</translation>
    </message>
    <message>
        <source>System prompt:</source>
        <translation>系统提示词：</translation>
    </message>
    <message>
        <source>Prompt:</source>
        <translation>提示词：</translation>
    </message>
</context>
<context>
    <name>TaskEventKind</name>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Self-check</source>
        <translation>自检</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>TaskResultPage</name>
    <message>
        <source>Show ra&amp;w text</source>
        <translation>显示原文(&amp;W)</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <source>Copy the answer&apos;s raw text to the clipboard</source>
        <translation>将回答原文复制到剪贴板</translation>
    </message>
    <message>
        <source>Copy &amp;plain text</source>
        <translation>复制纯文本(&amp;P)</translation>
    </message>
    <message>
        <source>Copy the answer as plain text (as the page showed it)</source>
        <translation>复制纯文本答案（与网页上显示的一致）</translation>
    </message>
    <message numerus="yes">
        <source>Reasoning (%Ln character(s))</source>
        <translation>
            <numerusform>思考过程（%Ln 字）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Generating… %Ln character(s) so far</source>
        <translation>
            <numerusform>正在生成… 已生成 %Ln 字</numerusform>
        </translation>
    </message>
    <message>
        <source>Generating… waiting for the first characters</source>
        <translation>正在生成… 等待模型开始输出</translation>
    </message>
    <message>
        <source>Waiting for a free account</source>
        <translation>等待空闲账号</translation>
    </message>
    <message>
        <source>No answer: the task failed (see the error above and the event log)</source>
        <translation>没有回答：任务失败（见上方错误信息和事件日志）</translation>
    </message>
    <message>
        <source>No answer: the task was canceled</source>
        <translation>没有回答：任务已取消</translation>
    </message>
    <message>
        <source>The task finished without an answer</source>
        <translation>任务已结束，但没有回答</translation>
    </message>
    <message>
        <source>Copied to the clipboard</source>
        <translation>已复制到剪贴板</translation>
    </message>
    <message numerus="yes">
        <source>%Ln character(s)</source>
        <translation>
            <numerusform>%Ln 字</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>TaskState</name>
    <message>
        <source>Pending</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>Succeeded</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Canceled</source>
        <translation>已取消</translation>
    </message>
</context>
<context>
    <name>TaskTable</name>
    <message>
        <source>Filter by text, task id or error…</source>
        <translation>按内容、任务 ID 或错误筛选…</translation>
    </message>
    <message>
        <source>All states</source>
        <translation>全部状态</translation>
    </message>
    <message>
        <source>Not finished</source>
        <translation>未完成</translation>
    </message>
    <message>
        <source>Needs a look</source>
        <translation>需要查看</translation>
    </message>
    <message>
        <source>Both lanes</source>
        <translation>全部通道</translation>
    </message>
    <message>
        <source>All batches</source>
        <translation>全部批次</translation>
    </message>
    <message>
        <source>Open details</source>
        <translation>打开详情</translation>
    </message>
    <message>
        <source>Details…</source>
        <translation>详情…</translation>
    </message>
    <message numerus="yes">
        <source>Cancel %n task(s)</source>
        <translation>
            <numerusform>取消 %n 个任务</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Retry %n task(s)</source>
        <translation>
            <numerusform>重试 %n 个任务</numerusform>
        </translation>
    </message>
    <message>
        <source>Export selection…</source>
        <translation>导出所选…</translation>
    </message>
    <message>
        <source>Priority</source>
        <translation>优先级</translation>
    </message>
    <message>
        <source>Move to the top</source>
        <translation>移到最前</translation>
    </message>
    <message>
        <source>Move to the bottom</source>
        <translation>移到最后</translation>
    </message>
    <message>
        <source>Set priority…</source>
        <translation>设置优先级…</translation>
    </message>
</context>
<context>
    <name>TaskTableModel</name>
    <message>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Lane</source>
        <translation>通道</translation>
    </message>
    <message>
        <source>Account</source>
        <translation>账号</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Attempt</source>
        <translation>尝试次数</translation>
    </message>
    <message>
        <source>Heartbeat</source>
        <translation>心跳</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Priority</source>
        <translation>优先级</translation>
    </message>
    <message>
        <source>Workstation</source>
        <translation>工作站</translation>
    </message>
    <message>
        <source>Canceling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>Scheduled %1</source>
        <translation>定时 %1</translation>
    </message>
    <message>
        <source>Retry in %1</source>
        <translation>%1后重试</translation>
    </message>
    <message numerus="yes">
        <source>%n characters so far</source>
        <translation>
            <numerusform>已生成 %n 字</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>TeamAccounts</name>
    <message>
        <source>On other workstations</source>
        <translation>其他工作站上的账号</translation>
    </message>
    <message>
        <source>Account</source>
        <translation>账号</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>所在位置</translation>
    </message>
    <message>
        <source>not working: its workstation is off</source>
        <translation>未在工作：所在工作站已关闭</translation>
    </message>
    <message>
        <source>running a task</source>
        <translation>正在运行任务</translation>
    </message>
    <message>
        <source>This web account belongs to %1: its browser profile and sign-in are there, so only %1 runs it. Shown here read-only.</source>
        <translation>此网页账号属于 %1：它的浏览器配置和登录状态都在那台电脑上，所以只有 %1 运行它。此处仅供查看。</translation>
    </message>
    <message>
        <source>on %1</source>
        <translation>在 %1 上</translation>
    </message>
    <message>
        <source>%1 · online</source>
        <translation>%1 · 在线</translation>
    </message>
    <message>
        <source>%1 · offline</source>
        <translation>%1 · 离线</translation>
    </message>
    <message>
        <source>%1 · offline, last seen %2 ago</source>
        <translation>%1 · 离线，%2前最后在线</translation>
    </message>
    <message>
        <source>held there, not run on this workstation</source>
        <translation>由那台工作站持有，本工作站不运行它</translation>
    </message>
    <message>
        <source>%1 holds this web account (its browser profile and sign-in are there), so this workstation leaves it alone.</source>
        <translation>此网页账号由 %1 持有（浏览器配置和登录状态都在那里），本工作站不会使用它。</translation>
    </message>
</context>
<context>
    <name>TeamPage</name>
    <message>
        <source>Several workstations can share one queue on a PostgreSQL database: a batch submitted once runs on whichever workstation has a free account, and every window sees the whole team. Leave the address empty to keep this PC&apos;s own queue.</source>
        <translation>多台工作站可以通过一个 PostgreSQL 数据库共用一个任务队列：一个批次只需提交一次，由有空闲账号的工作站运行，每个窗口都能看到整个团队。地址留空则继续使用本机自己的队列。</translation>
    </message>
    <message>
        <source>postgresql://USER@HOST:5432/DATABASE — libpq parameters may follow, such as ?sslmode=verify-full. Never the password: it goes in the field below.</source>
        <translation>postgresql://用户@主机:5432/数据库 —— 后面可以加 libpq 参数，例如 ?sslmode=verify-full。不要写密码：密码填在下面一栏。</translation>
    </message>
    <message>
        <source>leave empty to keep the stored one</source>
        <translation>留空则保留已保存的密码</translation>
    </message>
    <message>
        <source>%1 (this computer&apos;s name)</source>
        <translation>%1（本机名称）</translation>
    </message>
    <message>
        <source>Its web accounts belong to it (their browser profiles are here); the other workstations show them as “on %1”.</source>
        <translation>本工作站的网页账号属于它（浏览器配置在本机）；其他工作站会把它们显示为“在 %1 上”。</translation>
    </message>
    <message>
        <source>Team database:</source>
        <translation>团队数据库：</translation>
    </message>
    <message>
        <source>Password:</source>
        <translation>密码：</translation>
    </message>
    <message>
        <source>This workstation:</source>
        <translation>本工作站：</translation>
    </message>
    <message>
        <source>Test connection</source>
        <translation>测试连接</translation>
    </message>
    <message>
        <source>Connect once with the address and password above; nothing is changed</source>
        <translation>用上面的地址和密码连接一次；不会做任何修改</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>kept in the password file if you agree when saving</source>
        <translation>保存时如您同意，将写入密码文件</translation>
    </message>
    <message>
        <source>the password of the database&apos;s user</source>
        <translation>数据库用户的密码</translation>
    </message>
    <message>
        <source>Enter the team database&apos;s address first</source>
        <translation>请先填写团队数据库的地址</translation>
    </message>
    <message>
        <source>Enter the team database&apos;s address to test it</source>
        <translation>请填写团队数据库的地址后再测试</translation>
    </message>
    <message>
        <source>Connecting to %1…</source>
        <translation>正在连接 %1…</translation>
    </message>
    <message>
        <source>This team database did not accept the connection (see the page). Save it anyway? Media Assistant would wait for it at its next start, then stop.</source>
        <translation>这个团队数据库没有接受连接（见页面上的说明）。仍然保存吗？AI 智能媒体助理下次启动时会等待它，连不上就会停止。</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>已保存。</translation>
    </message>
    <message>
        <source>Saved. Media Assistant works with it after a restart.</source>
        <translation>已保存。重启 AI 智能媒体助理后生效。</translation>
    </message>
    <message>
        <source>The system keyring did not keep the password: %1</source>
        <translation>系统钥匙串没有保存密码：%1</translation>
    </message>
    <message>
        <source>This computer has no system keyring to keep the password in. Write it to PostgreSQL&apos;s own password file, %1? Only your user account can read that file; Media Assistant (and psql) find the password there at every start.</source>
        <translation>这台电脑没有系统钥匙串，无法保存密码。要把它写入 PostgreSQL 自己的密码文件 %1 吗？该文件只有您的用户账户可以读取；本程序（以及其他 PostgreSQL 客户端）每次启动时都会从那里读取密码。</translation>
    </message>
    <message>
        <source>Write the password file</source>
        <translation>写入密码文件</translation>
    </message>
    <message>
        <source>The password was not kept: save again and let it be written to the password file, or leave the field empty and set PGPASSWORD.</source>
        <translation>密码没有保存：请再次保存并允许写入密码文件，或者将此栏留空并设置 PGPASSWORD 环境变量。</translation>
    </message>
    <message>
        <source>The password is in %1.</source>
        <translation>密码保存在 %1。</translation>
    </message>
    <message>
        <source>Restart Media Assistant</source>
        <translation>重启 AI 智能媒体助理</translation>
    </message>
    <message>
        <source>The team database and the workstation&apos;s name take effect when Media Assistant starts again. Restart now? Running tasks go back to the queue and carry on after the restart, without using an attempt.</source>
        <translation>团队数据库和工作站名称在 AI 智能媒体助理重新启动后生效。现在重启吗？正在运行的任务会回到队列，重启后继续，不占用尝试次数。</translation>
    </message>
    <message>
        <source>Restart now</source>
        <translation>立即重启</translation>
    </message>
    <message>
        <source>Later</source>
        <translation>稍后</translation>
    </message>
    <message>
        <source>Team database</source>
        <translation>团队数据库</translation>
    </message>
    <message>
        <source>The server refused the password of %1: type it again.</source>
        <translation>服务器拒绝了 %1 的密码：请重新输入。</translation>
    </message>
    <message>
        <source>The server asks for a password for %1: type it above, or put it in PGPASSWORD or the pgpass file.</source>
        <translation>服务器要求 %1 提供密码：请在上面填写，或放在 PGPASSWORD 或 pgpass 文件中。</translation>
    </message>
    <message>
        <source>There is no database %4 on %2:%3.</source>
        <translation>%2:%3 上没有名为 %4 的数据库。</translation>
    </message>
    <message>
        <source>There is no user (role) %1 on %2:%3.</source>
        <translation>%2:%3 上没有用户（角色）%1。</translation>
    </message>
    <message>
        <source>The server does not let %1 connect from this computer (pg_hba.conf): ask its administrator.</source>
        <translation>服务器不允许 %1 从这台电脑连接（pg_hba.conf）：请联系数据库管理员。</translation>
    </message>
    <message>
        <source>%1 may not connect to the database %4: ask the administrator to allow it.</source>
        <translation>%1 没有连接数据库 %4 的权限：请让管理员授权。</translation>
    </message>
    <message>
        <source>The server is starting up or shutting down: try again in a moment.</source>
        <translation>服务器正在启动或关闭：请稍后再试。</translation>
    </message>
    <message>
        <source>The server has no free connection: try again later, or ask its administrator.</source>
        <translation>服务器没有空闲连接：请稍后再试，或联系数据库管理员。</translation>
    </message>
    <message>
        <source>Nothing answers at %2:%3: the server is not running there, or a firewall blocks the port.</source>
        <translation>%2:%3 没有响应：那里没有运行数据库服务器，或者防火墙挡住了这个端口。</translation>
    </message>
    <message>
        <source>The computer %2 is not known on this network: check the address.</source>
        <translation>网络中找不到名为 %2 的电脑：请检查地址。</translation>
    </message>
    <message>
        <source>%2:%3 does not answer: check the network, the address and the firewall.</source>
        <translation>%2:%3 没有应答：请检查网络、地址和防火墙。</translation>
    </message>
    <message>
        <source>The encrypted connection (TLS) failed: check sslmode in the address and the server&apos;s certificate.</source>
        <translation>加密连接（TLS）失败：请检查地址中的 sslmode 和服务器证书。</translation>
    </message>
    <message>
        <source>The address cannot be used: write it as postgresql://USER@HOST:5432/DATABASE (libpq parameters such as ?sslmode=require after it).</source>
        <translation>这个地址无法使用：请写成 postgresql://用户@主机:5432/数据库（后面可加 libpq 参数，例如 ?sslmode=require）。</translation>
    </message>
    <message>
        <source>The connection failed.</source>
        <translation>连接失败。</translation>
    </message>
    <message>
        <source>A password for this database is kept in the system keyring; type a new one to replace it.</source>
        <translation>系统钥匙串中已保存此数据库的密码；输入新密码即可替换。</translation>
    </message>
    <message>
        <source>A password typed here is kept in the system keyring, never in config.toml. Or leave it empty and use PGPASSWORD or the pgpass file.</source>
        <translation>在这里输入的密码会存入系统钥匙串，不会写进 config.toml。也可以留空，改用 PGPASSWORD 或 pgpass 文件。</translation>
    </message>
    <message>
        <source>This computer has no system keyring: a password typed here can be written, when you save, to PostgreSQL&apos;s own password file (%APPDATA%\postgresql\pgpass.conf on Windows, ~/.pgpass elsewhere), or set the PGPASSWORD environment variable.</source>
        <translation>这台电脑没有系统钥匙串：在此输入的密码可在保存时写入 PostgreSQL 自己的密码文件（Windows 上为 %APPDATA%\postgresql\pgpass.conf，其他系统为 ~/.pgpass），也可以设置 PGPASSWORD 环境变量。</translation>
    </message>
    <message>
        <source>The system keyring does not answer (locked?): unlock it, or keep the password in PGPASSWORD or the pgpass file.</source>
        <translation>系统钥匙串没有响应（是否已锁定？）：请解锁，或把密码放在 PGPASSWORD 或 pgpass 文件中。</translation>
    </message>
    <message>
        <source>The server said: %1</source>
        <translation>服务器原话：%1</translation>
    </message>
    <message>
        <source>Connected: PostgreSQL %1.</source>
        <translation>已连接：PostgreSQL %1。</translation>
    </message>
    <message>
        <source>The database is empty and %1 may not create tables in it: ask its administrator to run GRANT CREATE ON SCHEMA public TO %1 (or to make %1 the database&apos;s owner).</source>
        <translation>数据库是空的，且 %1 无权在其中建表：请让管理员执行 GRANT CREATE ON SCHEMA public TO %1（或把 %1 设为该数据库的所有者）。</translation>
    </message>
    <message>
        <source>The database is empty: Media Assistant creates its tables at its first start.</source>
        <translation>数据库是空的：AI 智能媒体助理第一次启动时会在其中建表。</translation>
    </message>
    <message>
        <source>Its queue has schema version %1, newer than this app&apos;s %2: update Media Assistant on this workstation first.</source>
        <translation>其中队列的结构版本为 %1，比本程序的 %2 新：请先更新这台工作站上的 AI 智能媒体助理。</translation>
    </message>
    <message>
        <source>It holds a Media Assistant queue (schema version %1); the first start updates it to %2.</source>
        <translation>其中有 AI 智能媒体助理的队列（结构版本 %1）；第一次启动时会升级到 %2。</translation>
    </message>
    <message>
        <source>It holds a Media Assistant queue.</source>
        <translation>其中有 AI 智能媒体助理的队列。</translation>
    </message>
    <message>
        <source>This window works on this PC&apos;s own queue (%1).</source>
        <translation>本窗口使用本机自己的队列（%1）。</translation>
    </message>
    <message>
        <source>This window works on the team database %1 as workstation %2.</source>
        <translation>本窗口以工作站 %2 的身份使用团队数据库 %1。</translation>
    </message>
    <message>
        <source>%1 is set on this computer: it wins over the address saved here.</source>
        <translation>这台电脑设置了 %1：它优先于这里保存的地址。</translation>
    </message>
    <message>
        <source>It was started with --store-url, which wins over the address saved here.</source>
        <translation>程序启动时带有 --store-url 参数，它优先于这里保存的地址。</translation>
    </message>
</context>
<context>
    <name>TeamView</name>
    <message>
        <source>Team: unknown while the database is unreachable</source>
        <translation>团队：数据库无法连接，工作站情况未知</translation>
    </message>
    <message numerus="yes">
        <source>Team: %n workstation(s) online</source>
        <translation>
            <numerusform>团队：%n 台工作站在线</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (this one)</source>
        <translation>%1（本机）</translation>
    </message>
    <message numerus="yes">
        <source>%1: online, %n task(s) running</source>
        <translation>
            <numerusform>%1：在线，%n 个任务运行中</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: offline, last seen %2 ago</source>
        <translation>%1：离线，%2前最后在线</translation>
    </message>
    <message>
        <source>%1: offline</source>
        <translation>%1：离线</translation>
    </message>
    <message>
        <source>The team database cannot be reached: that was not done. Try again once it answers.</source>
        <translation>无法连接团队数据库：刚才的操作没有完成。请在数据库恢复后重试。</translation>
    </message>
</context>
<context>
    <name>TimelineWidget</name>
    <message>
        <source>%1 so far</source>
        <translation>已用 %1</translation>
    </message>
    <message>
        <source>Task: %1</source>
        <translation>任务：%1</translation>
    </message>
    <message>
        <source>State: %1</source>
        <translation>状态：%1</translation>
    </message>
    <message>
        <source>Duration: %1</source>
        <translation>耗时：%1</translation>
    </message>
    <message>
        <source>Started: %1</source>
        <translation>开始：%1</translation>
    </message>
    <message>
        <source>Follow</source>
        <translation>跟随</translation>
    </message>
    <message>
        <source>Keep now at the right edge. Drag or scroll to look back, double-click to return.</source>
        <translation>让当前时间保持在最右侧。拖动或滚动可回看，双击空白处回到当前。</translation>
    </message>
    <message>
        <source>Task timeline</source>
        <translation>任务时间线</translation>
    </message>
</context>
</TS>
