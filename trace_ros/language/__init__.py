"""The ground floor both roads read text with: time expressions and their anchors
(``timeanchor``) and the shared vocabulary (``vocab``: event nouns, who is the robot).

Consolidation (road 2) and query (road 3) import from here and never from each other.
"""
