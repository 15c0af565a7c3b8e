/*
 * output.h - formatting events as trace-cmd compatible text and as JSON.
 * (Owned by the output layer; see lib/output/.)
 */
#ifndef STROBE_OUTPUT_H
#define STROBE_OUTPUT_H
#endif
