"""A stand-in for the user's browser in sightline's OAuth tests (stdlib only): given as
$BROWSER, it visits the authorization URL it is handed and follows the authorization server's
redirect back to sightline's listener, as a browser would after the user's consent.

BROWSER_MODE=forge-state changes the `state` of the redirect on the way back (a forged answer,
which sightline must refuse); BROWSER_MODE=slow takes 3 s first (a user logging in);
BROWSER_LOG=FILE appends each URL visited to FILE.
"""
import os
import sys
import urllib.error
import urllib.parse
import urllib.request


class Stop(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def log(url):
    path = os.environ.get("BROWSER_LOG")
    if path:
        with open(path, "a") as out:
            out.write(url + "\n")


url = sys.argv[1]
log(url)
if os.environ.get("BROWSER_MODE") == "slow":
    import time
    time.sleep(3)
try:
    urllib.request.build_opener(Stop).open(url)
    sys.exit("the authorization server did not redirect")
except urllib.error.HTTPError as error:
    location = error.headers.get("Location")
if not location:
    sys.exit("no Location in the authorization server's answer")
if os.environ.get("BROWSER_MODE") == "forge-state":
    parts = urllib.parse.urlsplit(location)
    query = [(k, "forged" if k == "state" else v) for k, v in urllib.parse.parse_qsl(parts.query)]
    location = urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))
log(location)
urllib.request.urlopen(location).read()
