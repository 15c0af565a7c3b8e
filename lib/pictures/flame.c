/*
 * flame.c - folded stacks and their flame graph (pictures.h): one writer
 * for every flame graph strobe draws (off-CPU time now, on-CPU samples of
 * strobe profile later).
 *
 * Stacks are a trie of frames: node = (parent, name), both small ids
 * (names interned once, edges interned as 8-byte keys), each node with
 * the weight of stacks that end there.  Folded output walks the trie
 * depth first with children sorted by name, which is the sorted order of
 * the lines.  The SVG is laid out as flamegraph.pl lays it out (root at
 * the bottom, each frame as wide as its total, children left to right
 * by name) and written through lib/output/svg.c, with a small script for
 * zoom, search and the details line embedded in it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/pictures.h>
#include <strobe/strobe.h>

#include "output/svg.h"
#include "util/intern.h"
#include "util/buf.h"

#define NONE UINT32_MAX

struct strobe_flame {
	struct strobe_intern names;
	struct strobe_intern edges;	/* key {parent + 1, name}: node id */
	uint32_t *parent, *name;
	uint64_t *self;
	size_t nr_alloc;
	uint64_t total;
	size_t nr_stacks;		/* nodes with self > 0 */
};

int strobe_flame_new(struct strobe_flame **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void strobe_flame_free(struct strobe_flame *f)
{
	if (!f)
		return;
	strobe_intern_free(&f->names);
	strobe_intern_free(&f->edges);
	free(f->parent);
	free(f->name);
	free(f->self);
	free(f);
}

static int64_t child(struct strobe_flame *f, uint32_t parent, const char *name)
{
	uint32_t key[2];
	int64_t nid, id;
	int added;

	nid = strobe_intern_add(&f->names, name, strlen(name), NULL);
	if (nid < 0)
		return nid;
	key[0] = parent == NONE ? 0 : parent + 1;
	key[1] = (uint32_t)nid;
	id = strobe_intern_add(&f->edges, key, sizeof(key), &added);
	if (id < 0 || !added)
		return id;
	if ((size_t)id >= f->nr_alloc) {
		size_t na = f->nr_alloc ? f->nr_alloc * 2 : 1024;
		uint32_t *p = realloc(f->parent, na * sizeof(*p)), *n;
		uint64_t *s;

		if (!p)
			return -ENOMEM;
		f->parent = p;
		n = realloc(f->name, na * sizeof(*n));
		if (!n)
			return -ENOMEM;
		f->name = n;
		s = realloc(f->self, na * sizeof(*s));
		if (!s)
			return -ENOMEM;
		f->self = s;
		f->nr_alloc = na;
	}
	f->parent[id] = parent;
	f->name[id] = (uint32_t)nid;
	f->self[id] = 0;
	return id;
}

int strobe_flame_add(struct strobe_flame *f, const char *const *frames, int n, uint64_t weight)
{
	uint32_t node = NONE;
	int64_t id;
	int i;

	if (!f || n < 1 || !frames)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!frames[i])
			return -EINVAL;
		id = child(f, node, frames[i]);
		if (id < 0)
			return (int)id;
		node = (uint32_t)id;
	}
	if (!f->self[node] && weight)
		f->nr_stacks++;
	f->self[node] += weight;
	f->total += weight;
	return 0;
}

uint64_t strobe_flame_total(const struct strobe_flame *f)
{
	return f ? f->total : 0;
}

size_t strobe_flame_nr_stacks(const struct strobe_flame *f)
{
	return f ? f->nr_stacks : 0;
}

/* ---- the tree: totals and sorted children ------------------------------- */

struct tree {
	uint32_t n;
	uint64_t *total;
	uint32_t *first, *next;	/* children sorted by name; roots under n */
	uint32_t roots;
	int depth;		/* deepest level (roots: 0) */
	int *level;
};

static const struct strobe_flame *sort_f;

static int by_name(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return strcmp(strobe_intern_key(&sort_f->names, sort_f->name[x]),
		      strobe_intern_key(&sort_f->names, sort_f->name[y]));
}

static void tree_free(struct tree *t)
{
	free(t->total);
	free(t->first);
	free(t->next);
	free(t->level);
}

static int tree_build(const struct strobe_flame *f, struct tree *t)
{
	uint32_t n = f->edges.n, i, *order, p;

	memset(t, 0, sizeof(*t));
	t->n = n;
	t->roots = NONE;
	t->total = calloc(n + 1, sizeof(*t->total));
	t->first = malloc((n + 1) * sizeof(*t->first));
	t->next = malloc((n + 1) * sizeof(*t->next));
	t->level = calloc(n + 1, sizeof(*t->level));
	order = malloc((n + 1) * sizeof(*order));
	if (!t->total || !t->first || !t->next || !t->level || !order) {
		free(order);
		tree_free(t);
		return -ENOMEM;
	}
	/* children come after their parent: one backward pass sums */
	for (i = n; i-- > 0;) {
		t->total[i] += f->self[i];
		if (f->parent[i] != NONE)
			t->total[f->parent[i]] += t->total[i];
	}
	for (i = 0; i < n; i++) {
		t->level[i] = f->parent[i] == NONE ? 0 : t->level[f->parent[i]] + 1;
		if (t->level[i] > t->depth)
			t->depth = t->level[i];
		order[i] = i;
		t->first[i] = NONE;
	}
	/* link children in name order: insert in reverse sorted order */
	sort_f = f;
	qsort(order, n, sizeof(*order), by_name);
	for (i = n; i-- > 0;) {
		uint32_t id = order[i];

		p = f->parent[id];
		if (p == NONE) {
			t->next[id] = t->roots;
			t->roots = id;
		} else {
			t->next[id] = t->first[p];
			t->first[p] = id;
		}
	}
	free(order);
	return 0;
}

uint64_t strobe_flame_weight(const struct strobe_flame *f, const char *const *frames, int n)
{
	uint32_t node = NONE, key[2];
	struct tree t;
	int64_t nid, id;
	uint64_t w;
	int i;

	if (!f || n < 1)
		return 0;
	for (i = 0; i < n; i++) {
		nid = strobe_intern_find(&f->names, frames[i], strlen(frames[i]));
		if (nid < 0)
			return 0;
		key[0] = node == NONE ? 0 : node + 1;
		key[1] = (uint32_t)nid;
		id = strobe_intern_find(&f->edges, key, sizeof(key));
		if (id < 0)
			return 0;
		node = (uint32_t)id;
	}
	if (tree_build(f, &t) < 0)
		return 0;
	w = t.total[node];
	tree_free(&t);
	return w;
}

/* ---- folded ------------------------------------------------------------ */

/* a frame name with ';' and line breaks made '_' */
static void put_frame(struct strobe_buf *b, const char *s, size_t n)
{
	size_t i, run = 0;

	for (i = 0; i < n; i++) {
		if (s[i] != ';' && s[i] != '\n' && s[i] != '\r')
			continue;
		strobe_buf_write(b, s + run, i - run);
		strobe_buf_putc(b, '_');
		run = i + 1;
	}
	strobe_buf_write(b, s + run, n - run);
}

int strobe_flame_write_folded(const struct strobe_flame *f, struct strobe_buf *b)
{
	uint32_t *path, node;
	struct tree t;
	int depth = 0, i, r;

	if (!f || !f->edges.n)
		return 0;
	r = tree_build(f, &t);
	if (r < 0)
		return r;
	path = malloc(((size_t)t.depth + 2) * sizeof(*path));
	if (!path) {
		tree_free(&t);
		return -ENOMEM;
	}
	/* iterative depth-first walk: path[0..depth] is the current stack */
	node = t.roots;
	while (node != NONE) {
		path[depth] = node;
		if (f->self[node]) {
			for (i = 0; i <= depth; i++) {
				uint32_t nm = f->name[path[i]];

				if (i)
					strobe_buf_putc(b, ';');
				put_frame(b, strobe_intern_key(&f->names, nm), strobe_intern_key_len(&f->names, nm));
			}
			strobe_buf_printf(b, " %llu\n", (unsigned long long)f->self[node]);
		}
		if (t.first[node] != NONE) {
			depth++;
			node = t.first[node];
			continue;
		}
		while (node != NONE && t.next[node] == NONE)
			node = depth-- > 0 ? path[depth] : NONE;
		if (node != NONE)
			node = t.next[node];
	}
	free(path);
	tree_free(&t);
	return strobe_buf_status(b);
}

/* ---- SVG --------------------------------------------------------------- */

#define FRAME_H 16
#define FONT_W 7.0	/* an average character of 12 px Verdana */
#define PAD_X 10
#define PAD_TOP 58
#define PAD_BOTTOM 34

/* Deterministic colour of a name: a hash picks the shade. */
static void color(const char *name, int kind, enum strobe_flame_colors scheme, char *out,
		  size_t size)
{
	uint32_t h = strobe_intern_hash(name, strlen(name));
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0;
	int r, g, bl;

	if (kind == 1) {		/* root levels: containers, processes */
		r = 150 + (int)(50 * v1);
		g = 130 + (int)(40 * v2);
		bl = 200 + (int)(40 * v1);
	} else if (scheme == STROBE_FLAME_OFFCPU) {
		r = (int)(80 * v2);
		g = 120 + (int)(100 * v1);
		bl = 200 + (int)(55 * v2);
	} else {
		r = 205 + (int)(50 * v2);
		g = (int)(230 * v1);
		bl = (int)(55 * v2);
	}
	snprintf(out, size, "rgb(%d,%d,%d)", r, g, bl);
}

static void human(uint64_t w, const char *unit, char *out, size_t size)
{
	if (!unit || strcmp(unit, "ns"))
		snprintf(out, size, "%llu %s", (unsigned long long)w, unit ? unit : "samples");
	else if (w >= 1000000000ull)
		snprintf(out, size, "%.3f s", w / 1e9);
	else if (w >= 1000000ull)
		snprintf(out, size, "%.3f ms", w / 1e6);
	else
		snprintf(out, size, "%.3f us", w / 1e3);
}

/* The text that fits in w pixels: the name, cut with "..", or nothing. */
static size_t fit(const char *name, size_t len, double w)
{
	double room = (w - 6) / FONT_W;

	if (room < 3)
		return 0;
	if ((double)len <= room)
		return len;
	return (size_t)room - 2;
}

static const char script[] =
"var svg=document.documentElement,details,matchedt,searchbtn,unzoombtn,frames=[],"
"W=+svg.getAttribute('width'),PX=10,FW=7,cur=null,re=null;\n"
"function init(){details=document.getElementById('details');"
"matchedt=document.getElementById('matched');"
"searchbtn=document.getElementById('search');unzoombtn=document.getElementById('unzoom');"
"var gs=document.getElementsByClassName('f');"
"for(var i=0;i<gs.length;i++){var g=gs[i],r=g.getElementsByTagName('rect')[0],"
"t=g.getElementsByTagName('text')[0];frames.push({g:g,r:r,t:t,"
"x:+r.getAttribute('x'),w:+r.getAttribute('width'),y:+r.getAttribute('y'),"
"n:g.getAttribute('data-name'),fill:r.getAttribute('fill')});"
"g.addEventListener('click',onclick);g.addEventListener('mouseover',over);"
"g.addEventListener('mouseout',out);}"
"searchbtn.addEventListener('click',search);unzoombtn.addEventListener('click',unzoom);"
"window.addEventListener('keydown',function(e){if(e.key==='Escape'){unzoom();reset();}"
"else if((e.ctrlKey||e.metaKey)&&e.key==='f'){e.preventDefault();search();}});"
/* links: #s=REGEX searches, #z=NAME zooms into the widest frame NAME */
"var h=decodeURIComponent((location.hash||'').substring(1)).split('&');"
"for(var k=0;k<h.length;k++){if(h[k].substring(0,2)==='s='){re=new RegExp(h[k].substring(2));"
"searchbtn.textContent='Reset Search';mark();}"
"else if(h[k].substring(0,2)==='z='){var b=null;for(var j=0;j<frames.length;j++)"
"if(frames[j].n===h[k].substring(2)&&(!b||frames[j].w>b.w))b=frames[j];if(b)zoom(b);}}}\n"
"function byg(g){for(var i=0;i<frames.length;i++)if(frames[i].g===g)return frames[i];}\n"
"function over(e){details.textContent=this.getElementsByTagName('title')[0].textContent;}\n"
"function out(){details.textContent=' ';}\n"
"function label(f,x,w){if(!f.t)return;var room=(w-6)/FW,n=f.n;"
"if(room<3)n='';else if(n.length>room)n=n.substring(0,Math.floor(room)-2)+'..';"
"f.t.textContent=n;f.t.setAttribute('x',x+3);}\n"
"function place(f,x,w,show){f.g.style.display=show?'':'none';if(!show)return;"
"f.r.setAttribute('x',x);f.r.setAttribute('width',w);label(f,x,w);}\n"
"function onclick(){zoom(byg(this));}\n"
"function zoom(z){cur=z;var r=(W-2*PX)/z.w;unzoombtn.style.opacity='1';"
"for(var i=0;i<frames.length;i++){var f=frames[i],in_=f.x<z.x+z.w-1e-6&&f.x+f.w>z.x+1e-6;"
"if(!in_){place(f,0,0,false);continue;}"
"if(f.y>=z.y){place(f,PX,W-2*PX,true);f.g.style.opacity=f.y>z.y?'0.6':'1';}"
"else{place(f,PX+(f.x-z.x)*r,f.w*r,true);f.g.style.opacity='1';}}}\n"
"function unzoom(){cur=null;unzoombtn.style.opacity='0';"
"for(var i=0;i<frames.length;i++){var f=frames[i];place(f,f.x,f.w,true);f.g.style.opacity='1';}"
"if(re)mark();}\n"
"function reset(){re=null;searchbtn.textContent='Search';matchedt.textContent=' ';"
"for(var i=0;i<frames.length;i++)frames[i].r.setAttribute('fill',frames[i].fill);}\n"
"function mark(){var m=[],tot=0,end=-1;"
"for(var i=0;i<frames.length;i++){var f=frames[i];if(re.test(f.n)){"
"f.r.setAttribute('fill','rgb(230,0,230)');m.push(f);}else f.r.setAttribute('fill',f.fill);}"
"m.sort(function(a,b){return a.x-b.x||b.w-a.w;});"
"for(var j=0;j<m.length;j++){var s=m[j].x,e=m[j].x+m[j].w;if(s>=end){tot+=m[j].w;end=e;}"
"else if(e>end){tot+=e-end;end=e;}}"
"matchedt.textContent='Matched: '+(100*tot/(W-2*PX)).toFixed(1)+'%';}\n"
"function search(){if(re){reset();return;}"
"var t=prompt('Search for (regular expression):','');if(!t)return;"
"try{re=new RegExp(t);}catch(e){alert('bad expression: '+e.message);return;}"
"searchbtn.textContent='Reset Search';mark();}\n"
"window.addEventListener('load',init);\n";

int strobe_flame_write_svg(const struct strobe_flame *f, const struct strobe_flame_svg_opts *o,
			   struct strobe_buf *b, struct strobe_error *err)
{
	struct strobe_flame_svg_opts opts = { 0 };
	struct strobe_xml x;
	struct tree t;
	uint32_t *path, node;
	double *xs, width, height, scale, fw;
	char fill[32], amount[64];
	int depth = 0, r, kind;
	size_t n;

	if (o) {
		size_t sz = o->size && o->size < sizeof(opts) ? o->size : sizeof(opts);

		memcpy(&opts, o, sz);
	}
	if (!f || !f->total)
		return strobe_err(err, -EINVAL, "no stacks to draw");
	r = tree_build(f, &t);
	if (r < 0)
		return strobe_err(err, r, "out of memory");
	path = malloc(((size_t)t.depth + 2) * sizeof(*path));
	xs = malloc(((size_t)t.depth + 2) * sizeof(*xs));
	if (!path || !xs) {
		free(path);
		free(xs);
		tree_free(&t);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	width = opts.width > 100 ? opts.width : 1200;
	height = PAD_TOP + (t.depth + 1) * FRAME_H + PAD_BOTTOM;
	scale = (width - 2 * PAD_X) / (double)f->total;

	strobe_xml_init(&x, b);
	strobe_svg_begin(&x, width, height);
	strobe_xml_start(&x, "style");
	strobe_xml_attr(&x, "type", "text/css");
	strobe_xml_cdata(&x, "text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}"
			 ".f:hover rect{stroke:#000;stroke-width:0.5;cursor:pointer}"
			 "#title{font-size:17px;text-anchor:middle}"
			 "#subtitle{text-anchor:middle;fill:#555}"
			 "#unzoom,#search{cursor:pointer}#unzoom{opacity:0}"
			 "text.l{pointer-events:none}");
	strobe_xml_end(&x);
	strobe_xml_start(&x, "script");
	strobe_xml_attr(&x, "type", "text/ecmascript");
	strobe_xml_cdata(&x, script);
	strobe_xml_end(&x);
	strobe_xml_start(&x, "rect");
	strobe_xml_attr(&x, "x", "0");
	strobe_xml_attr(&x, "y", "0");
	strobe_xml_attr_num(&x, "width", width);
	strobe_xml_attr_num(&x, "height", height);
	strobe_xml_attr(&x, "fill", "#f8f8f8");
	strobe_xml_end(&x);
	strobe_xml_start(&x, "text");
	strobe_xml_attr(&x, "id", "title");
	strobe_xml_attr_num(&x, "x", width / 2);
	strobe_xml_attr(&x, "y", "24");
	strobe_xml_text(&x, opts.title ? opts.title : "Flame Graph",
			strlen(opts.title ? opts.title : "Flame Graph"));
	strobe_xml_end(&x);
	if (opts.subtitle) {
		strobe_xml_start(&x, "text");
		strobe_xml_attr(&x, "id", "subtitle");
		strobe_xml_attr_num(&x, "x", width / 2);
		strobe_xml_attr(&x, "y", "42");
		strobe_xml_text(&x, opts.subtitle, strlen(opts.subtitle));
		strobe_xml_end(&x);
	}
	strobe_xml_start(&x, "text");
	strobe_xml_attr(&x, "id", "unzoom");
	strobe_xml_attr(&x, "x", "10");
	strobe_xml_attr(&x, "y", "24");
	strobe_xml_text(&x, "Reset Zoom", 10);
	strobe_xml_end(&x);
	strobe_xml_start(&x, "text");
	strobe_xml_attr(&x, "id", "search");
	strobe_xml_attr_num(&x, "x", width - 110);
	strobe_xml_attr(&x, "y", "24");
	strobe_xml_text(&x, "Search", 6);
	strobe_xml_end(&x);
	strobe_xml_start(&x, "text");
	strobe_xml_attr(&x, "id", "matched");
	strobe_xml_attr_num(&x, "x", width - 110);
	strobe_xml_attr_num(&x, "y", height - 12);
	strobe_xml_text(&x, " ", 1);
	strobe_xml_end(&x);
	strobe_xml_start(&x, "text");
	strobe_xml_attr(&x, "id", "details");
	strobe_xml_attr(&x, "x", "10");
	strobe_xml_attr_num(&x, "y", height - 12);
	strobe_xml_text(&x, " ", 1);
	strobe_xml_end(&x);

	/* depth first, x of each level's next frame in xs[] */
	strobe_xml_start(&x, "g");
	strobe_xml_attr(&x, "id", "frames");
	xs[0] = PAD_X;
	node = t.roots;
	while (node != NONE && !x.err) {
		const char *name = strobe_intern_key(&f->names, f->name[node]);
		size_t len = strobe_intern_key_len(&f->names, f->name[node]);
		double fx = xs[depth], fy = height - PAD_BOTTOM - (depth + 1) * FRAME_H;

		path[depth] = node;
		fw = (double)t.total[node] * scale;
		xs[depth] += fw;
		if (fw >= 0.1) {
			kind = depth < opts.root_levels ? 1 : 0;
			color(name, kind, opts.colors, fill, sizeof(fill));
			human(t.total[node], opts.unit, amount, sizeof(amount));
			strobe_xml_start(&x, "g");
			strobe_xml_attr(&x, "class", "f");
			strobe_xml_attr(&x, "data-name", name);
			strobe_xml_start(&x, "title");
			strobe_xml_text(&x, name, len);
			strobe_xml_textf(&x, " (%s, %.2f%%)", amount,
					 100.0 * (double)t.total[node] / (double)f->total);
			strobe_xml_end(&x);
			strobe_xml_start(&x, "rect");
			strobe_xml_attr_num(&x, "x", fx);
			strobe_xml_attr_num(&x, "y", fy);
			strobe_xml_attr_num(&x, "width", fw);
			strobe_xml_attr_num(&x, "height", FRAME_H - 1);
			strobe_xml_attr(&x, "fill", fill);
			strobe_xml_attr(&x, "rx", "2");
			strobe_xml_end(&x);
			strobe_xml_start(&x, "text");
			strobe_xml_attr(&x, "class", "l");
			strobe_xml_attr_num(&x, "x", fx + 3);
			strobe_xml_attr_num(&x, "y", fy + FRAME_H - 4.5);
			n = fit(name, len, fw);
			if (n) {
				/* cut on a character boundary, not inside UTF-8 */
				while (n < len && n > 0 && ((unsigned char)name[n] & 0xc0) == 0x80)
					n--;
				strobe_xml_text(&x, name, n);
				if (n < len)
					strobe_xml_text(&x, "..", 2);
			}
			strobe_xml_end(&x);
			strobe_xml_end(&x);
		}
		/* down into the children (only when this frame was drawn) */
		if (t.first[node] != NONE && fw >= 0.1) {
			xs[depth + 1] = fx;
			depth++;
			node = t.first[node];
			continue;
		}
		while (node != NONE && t.next[node] == NONE)
			node = depth-- > 0 ? path[depth] : NONE;
		if (node != NONE)
			node = t.next[node];
	}
	strobe_xml_end(&x);	/* frames */
	strobe_xml_end(&x);	/* svg */
	r = strobe_xml_finish(&x);
	free(path);
	free(xs);
	tree_free(&t);
	if (r < 0)
		return strobe_err(err, r, "cannot write the SVG: %s", strerror(-r));
	return 0;
}
