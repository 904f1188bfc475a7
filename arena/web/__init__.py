"""The browser side: the play server and the pages it and the replays use."""
