"""The notifications tab: notices until read, the unread count. May import ``gui.common``."""
