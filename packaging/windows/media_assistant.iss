; Inno Setup 6 script: the Windows installer for the one-folder bundle dist\MediaAssistant\.
; Not built on the Linux build machine (docs/PACKAGING.md says what was and was not verified).
; On Windows, after `python packaging\build.py`:
;   iscc /DAppVersion=0.1.0 packaging\windows\media_assistant.iss
; -> dist\MediaAssistant-0.1.0-setup.exe
;
; Per-user install (no administrator rights, as on locked-down office PCs) into
; %LOCALAPPDATA%\Programs\Media Assistant, a Start-menu entry, an optional desktop icon, and an
; uninstaller that KEEPS the operator's data (tasks, results, browser profiles, logs in
; %LOCALAPPDATA%\media-assistant) unless they say otherwise; a silent uninstall always keeps it.

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#define AppName "Media Assistant"
#define AppExe "MediaAssistant.exe"
; Relative paths are relative to this script's folder: the repository is two levels up.
#define Root "..\.."
#define Bundle Root + "\dist\MediaAssistant"

[Setup]
; Never change AppId: it is how Windows knows an update from another app.
AppId={{6E3B2F4A-9C1D-4B7E-8A55-3D2C1F0E9A71}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=Media Assistant
VersionInfoVersion={#AppVersion}
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=commandline
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir={#Root}\dist
OutputBaseFilename=MediaAssistant-{#AppVersion}-setup
SetupIconFile={#Root}\resources\icons\media-assistant.ico
UninstallDisplayIcon={app}\{#AppExe}
UninstallDisplayName={#AppName}
Compression=lzma2
SolidCompression=yes
WizardStyle=modern
; Close a running Media Assistant before files are replaced (it shuts down gracefully).
CloseApplications=yes
RestartApplications=no
; The app holds these mutexes while it runs (media_assistant/gui/bridge/app_mutex.py): setup and the
; uninstaller ask the operator to close it first instead of replacing files under it.
AppMutex=MediaAssistantAppMutex,Global\MediaAssistantAppMutex

[Languages]
Name: "en"; MessagesFile: "compiler:Default.isl"
; Official in Inno Setup 6.4 and later.
Name: "zh_CN"; MessagesFile: "compiler:Languages\ChineseSimplified.isl"

[CustomMessages]
en.AppComment=Run batches of AI generation tasks on web and API models
zh_CN.AppComment=在网页模型与 API 模型上批量运行 AI 生成任务
en.KeepData=Also delete your Media Assistant data?%n%nTasks and results, browser profiles (web logins), the downloaded browser and the logs in:%n%1%n%nand the API keys, webhook addresses and team database password kept in Windows Credential Manager.%n%nChoose No to keep them for a later installation.
zh_CN.KeepData=是否同时删除 AI 智能媒体助理的数据？%n%n包括以下文件夹中的任务与结果、浏览器配置（网页登录状态）、已下载的浏览器和日志：%n%1%n%n以及保存在 Windows 凭据管理器中的 API 密钥、Webhook 地址和团队数据库密码。%n%n选择“否”将保留这些数据，供以后重新安装使用。

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[InstallDelete]
; An upgrade starts from a clean _internal: files a newer PySide6 or Python no longer ships must
; not linger beside the new ones (a stale DLL found first breaks the start).
Type: filesandordirs; Name: "{app}\_internal"

[Files]
Source: "{#Bundle}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#AppExe}"; Comment: "{cm:AppComment}"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; Comment: "{cm:AppComment}"; Tasks: desktopicon

[Run]
Filename: "{app}\{#AppExe}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

[Code]
// The app's data folder (platformdirs' per-user data dir): kept unless the operator asks.
function DataDir(): String;
begin
  Result := ExpandConstant('{localappdata}\media-assistant');
end;

var
  DeleteData: Boolean;

// Asked before the files go (usUninstall), because deleting the data also runs the app's own
// `media-assistant.exe forget-secrets`, which removes its Credential Manager entries (API keys,
// webhook addresses, the team database's password).
procedure CurUninstallStepChanged(CurUninstallStep: TUninstallStep);
var
  ResultCode: Integer;
begin
  if (CurUninstallStep = usUninstall) and (not UninstallSilent) and DirExists(DataDir()) then
  begin
    DeleteData := MsgBox(FmtMessage(CustomMessage('KeepData'), [DataDir()]), mbConfirmation,
                         MB_YESNO or MB_DEFBUTTON2) = IDYES;
    if DeleteData then
      Exec(ExpandConstant('{app}\media-assistant.exe'), 'forget-secrets', '', SW_HIDE,
           ewWaitUntilTerminated, ResultCode);
  end;
  if (CurUninstallStep = usPostUninstall) and DeleteData then
  begin
    DelTree(DataDir(), True, True, True);
    RegDeleteKeyIncludingSubkeys(HKCU, 'Software\MediaAssistant');
  end;
end;
