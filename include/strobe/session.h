/*
 * session.h - tracefs control: strobe's own instance, events, filters,
 * target PIDs, buffer size, clock.  (Owned by the session/record layer;
 * see lib/session/.)
 */
#ifndef STROBE_SESSION_H
#define STROBE_SESSION_H
#endif
