"""The shell: the main window that assembles the views, the controller and export, the
application's start-up, autosave and recovery, preferences and the Winnow lab's window."""
