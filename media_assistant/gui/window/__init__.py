"""The main window and what it assembles: the lane panels, the log, banners, the queue
controls, settings, help actions, the first start and the store recovery dialog. The top of
``gui``: may import every other ``gui`` package."""
