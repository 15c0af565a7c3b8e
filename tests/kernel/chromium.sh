# chromium.sh - render pictures with headless Chromium (Debian's
# chromium), for the tests of strobe's SVG and HTML output (sourced after
# lib.sh).  shot FILE[#FRAGMENT] PNG WIDTH HEIGHT: a screenshot of the
# page; its console messages (errors included: an uncaught exception in
# a picture's script) go to PNG.console.  Fails when no PNG was written
# or the console has anything.  Screenshots are copied into
# $SCREENSHOT_DIR when that is set, to look at them.
CHROMIUM=$(command -v chromium || command -v chromium-browser)

shot() {
	local url=$1 png=$2 w=$3 h=$4
	rm -f "$png"
	timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$WORK/chromium-profile" --virtual-time-budget=3000 \
		--enable-logging=stderr --v=0 --window-size="$w,$h" \
		--screenshot="$png" "file://$url" > "$png.log" 2>&1
	grep -a ':CONSOLE' "$png.log" > "$png.console"
	if [ -n "$SCREENSHOT_DIR" ] && [ -s "$png" ]; then
		mkdir -p "$SCREENSHOT_DIR" && cp "$png" "$SCREENSHOT_DIR/"
	fi
	[ -s "$png" ] && [ ! -s "$png.console" ]
}
