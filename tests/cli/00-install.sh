# 00-install.sh - `make install` puts binary, library, headers, pkg-config
# file and man pages under PREFIX, and a program builds against the
# installed library with pkg-config alone; the bash completion is in place.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D=$(mktemp -d /tmp/strobe-install.XXXXXX)
trap 'rm -rf "$D"' EXIT
cd "$ROOT" || exit 2
if ! make -s install PREFIX=/usr DESTDIR="$D/root" > "$D/log" 2>&1; then
	cat "$D/log"; echo "FAIL make_install_succeeds"; exit 1
fi
echo "PASS make_install_succeeds"
ok=1
for f in bin/strobe lib/libstrobe.a lib/libstrobe.so.0 lib/libstrobe.so \
	include/strobe/strobe.h lib/pkgconfig/strobe.pc share/man/man1/strobe.1 \
	share/man/man1/strobe-record.1 share/man/man1/strobe-report.1 \
	share/bash-completion/completions/strobe; do
	[ -e "$D/root/usr/$f" ] || { echo "missing $f"; ok=0; }
done
[ $ok = 1 ] && echo "PASS install_puts_every_file_in_place" || echo "FAIL install_puts_every_file_in_place"

cat > "$D/prog.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <strobe/strobe.h>
int main(void)
{
	struct strobe_tracefile *tf;
	struct strobe_error err;
	int rc = strobe_tracefile_open("/nonexistent.dat", &tf, &err);
	printf("%s %d %s\n", strobe_version(), rc < 0, err.msg);
	return strcmp(strobe_version(), STROBE_VERSION) != 0;
}
C
sed -i "s|^prefix=.*|prefix=$D/root/usr|" "$D/root/usr/lib/pkgconfig/strobe.pc"
export PKG_CONFIG_PATH="$D/root/usr/lib/pkgconfig"
if cc -o "$D/prog" "$D/prog.c" $(pkg-config --cflags --libs strobe) 2> "$D/cc.log" &&
	LD_LIBRARY_PATH="$D/root/usr/lib" "$D/prog" > "$D/out" && grep -q '^0\.[0-9.]* 1 ' "$D/out"; then
	echo "PASS program_links_against_installed_libstrobe_via_pkg_config"
else
	cat "$D/cc.log" "$D/out" 2>/dev/null
	echo "FAIL program_links_against_installed_libstrobe_via_pkg_config"
fi
# Only the public API is exported from the shared library.
if nm -D --defined-only "$D/root/usr/lib/libstrobe.so.0" | awk '{print $3}' | grep -v '^strobe_' | grep -v '^LIBSTROBE' | grep -q .; then
	nm -D --defined-only "$D/root/usr/lib/libstrobe.so.0" | awk '{print $3}' | grep -v '^strobe_' | head
	echo "FAIL shared_library_exports_only_strobe_symbols"
else
	echo "PASS shared_library_exports_only_strobe_symbols"
fi
