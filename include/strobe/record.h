/*
 * record.h - recording a trace into a trace.dat file.  (Owned by the
 * session/record layer; see lib/record/.)
 */
#ifndef STROBE_RECORD_H
#define STROBE_RECORD_H
#endif
