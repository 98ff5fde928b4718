/*
 * petmem's host program for the Moddable SDK's headless Linux target
 * (mcconfig -p x-cli-lin). The SDK ships no `main` for x-cli platforms: this
 * one clones the machine that mcconfig/xsl prepared (the preloaded modules
 * live in its read-only part, as in flash on the device), imports `main`
 * (src/main.ts boots the memory and sets globalThis.petmem), then runs a GLib
 * main loop so the `timer` module's timers fire.
 *
 * stdin/stdout: one MCP (JSON-RPC) message per line in, one reply per line out,
 * through petmem.handle(); or lines of conversation (handleLine below). XS prints trace() on stdout; here stdout is moved to
 * stderr before the machine starts, so stdout carries only the replies. At the end of
 * stdin (or SIGINT/SIGTERM) it calls petmem.stop(), which flushes what changed,
 * then writes one JSON line about the XS heap to stderr:
 *   {"host":"x-cli-lin","created_slots","created_chunk_bytes","boot_slots",
 *    "boot_chunk_bytes","end_slots","end_chunk_bytes","peak_slots",
 *    "peak_chunk_bytes","heap_slots","chunk_bytes","stack_peak","calls"}
 * *_slots/*_chunk_bytes are in use after a collection; peak_* are XS's own
 * high-water marks (they include garbage not yet collected); heap_slots and
 * chunk_bytes are how big the heap had to become (above the manifest's
 * creation means it grew); stack_peak needs `make INSTRUMENT=1` (-1 without).
 *
 * The data folder is the app's config.file.root (tools/x-cli-lin/mc/config.js);
 * it is created here when missing. The path must match that file
 * (test/manifest.test.ts checks it).
 *
 * Build (see README, "Run in the Moddable simulator"):
 *   mcconfig -p x-cli-lin && make -C $MODDABLE/build/tmp/lin/release/petmem [INSTRUMENT=1]
 */

#include "xsAll.h"
#include "mc.xs.h"

#include <glib.h>
#include <glib-unix.h>
#include <stdio.h>
#include <sys/stat.h>
#include <errno.h>
#include <unistd.h>

// The SDK's `Resource` module is linked for its TLS (modules/crypt/ssl looks
// up its certificate store there); mcconfig generates no resources for x-cli
// platforms, so none is found (the sync's CA comes from mc/config instead).
const void* mcGetResource(xsMachine* the, char* path, size_t* size)
{
	*size = 0;
	return NULL;
}

#define PETMEM_DATA_DIR "/tmp/petmem"

static GMainLoop* gLoop = NULL;
static FILE* gReplies = NULL;
static xsMachine* gMachine = NULL;
static int gStatus = 0;
static long gCalls = 0;

void fxAbort(xsMachine* the, int status)
{
	fprintf(stderr, "petmem-host: XS abort: %s\n", fxAbortString(status));
	if (gReplies)
		fflush(gReplies);
	exit(status ? status : 1);
}

static void usage(txMachine* the, txSize* slots, txSize* chunks)
{
	xsCollectGarbage();
	*slots = the->currentHeapCount;
	*chunks = the->currentChunksSize;
}

static void callService(const char* method, const char* role, const char* text)
{
	xsBeginHost(gMachine);
	{
		xsVars(2);
		xsTry {
			xsVar(0) = xsGet(xsGlobal, xsID("petmem"));
			if (role)
				xsVar(1) = xsCall2(xsVar(0), xsID(method), xsString(role), xsString(text));
			else if (text)
				xsVar(1) = xsCall1(xsVar(0), xsID(method), xsString(text));
			else
				xsVar(1) = xsCall0(xsVar(0), xsID(method));
			if (!role && text && (xsTypeOf(xsVar(1)) == xsStringType)) {
				fputs(xsToString(xsVar(1)), gReplies);
				fputc('\n', gReplies);
				fflush(gReplies);
			}
		}
		xsCatch {
			fprintf(stderr, "petmem-host: %s threw %s\n", method, xsToString(xsException));
			gStatus = 1;
		}
	}
	xsEndHost(gMachine);
}

/*
 * A line is an MCP message (JSON), or a line of conversation as for
 * `petmem dialog`: "user: ..." or "assistant: ..." goes to
 * petmem.hear(), a blank line ends the conversation, "#..." is a comment
 * ("@ time" lines are ignored: the clock is the system's).
 */
static void handleLine(const char* line)
{
	const char* role = NULL;
	const char* text = line;
	while ((*text == ' ') || (*text == '\t') || (*text == '\r'))
		text++;
	if (!*text) {
		callService("endConversation", NULL, NULL);
		return;
	}
	if (*text == '#')
		return;
	if (*text == '@') {
		fprintf(stderr, "petmem-host: ignored \"%s\": the clock here is the system's\n", text);
		return;
	}
	if (!strncmp(text, "user:", 5)) {
		role = "user";
		text += 5;
	}
	else if (!strncmp(text, "assistant:", 10)) {
		role = "assistant";
		text += 10;
	}
	if (role) {
		while (*text == ' ')
			text++;
		callService("hear", role, text);
		return;
	}
	callService("handle", NULL, line);
	gCalls++;
}

static void stopService(void)
{
	xsBeginHost(gMachine);
	{
		xsVars(1);
		xsTry {
			xsVar(0) = xsGet(xsGlobal, xsID("petmem"));
			xsCall0(xsVar(0), xsID("stop"));
		}
		xsCatch {
			fprintf(stderr, "petmem-host: stop threw %s\n", xsToString(xsException));
			gStatus = 1;
		}
	}
	xsEndHost(gMachine);
}

static gboolean onInput(GIOChannel* channel, GIOCondition condition, gpointer data)
{
	gchar* line = NULL;
	gsize length = 0, end = 0;
	GError* error = NULL;
	GIOStatus status = g_io_channel_read_line(channel, &line, &length, &end, &error);
	if (status == G_IO_STATUS_NORMAL) {
		if (line) {
			line[end] = 0;
			handleLine(line);
		}
		g_free(line);
		return TRUE;
	}
	if (status == G_IO_STATUS_AGAIN)
		return TRUE;
	if (error) {
		fprintf(stderr, "petmem-host: stdin: %s\n", error->message);
		g_error_free(error);
	}
	g_main_loop_quit(gLoop);
	return FALSE;
}

static gboolean onSignal(gpointer data)
{
	g_main_loop_quit(gLoop);
	return G_SOURCE_REMOVE;
}

int main(int argc, char* argv[])
{
	txSize createdSlots, createdChunks, bootSlots, bootChunks, endSlots, endChunks;
	txMachine* the;
	if (mkdir(PETMEM_DATA_DIR, 0755) && (errno != EEXIST)) {
		fprintf(stderr, "petmem-host: cannot create %s: %s\n", PETMEM_DATA_DIR, strerror(errno));
		return 1;
	}
	{
		int fd = dup(1);
		if ((fd < 0) || !(gReplies = fdopen(fd, "w")) || (dup2(2, 1) < 0) || setvbuf(stdout, NULL, _IOLBF, 0)) {
			fprintf(stderr, "petmem-host: cannot set up stdout\n");
			return 1;
		}
	}
	gLoop = g_main_loop_new(NULL, FALSE);
	gMachine = fxPrepareMachine(NULL, xsPreparation(), "petmem", NULL, NULL);
	if (!gMachine) {
		fprintf(stderr, "petmem-host: cannot create the XS machine\n");
		return 1;
	}
	the = gMachine;
#ifdef mxInstrument
	the->stackPeak = the->stack;
#endif
	usage(the, &createdSlots, &createdChunks);
	xsBeginHost(gMachine);
	{
		xsTry {
			xsAwaitImport("main", XS_IMPORT_NAMESPACE);
		}
		xsCatch {
			fprintf(stderr, "petmem-host: main threw %s\n", xsToString(xsException));
			gStatus = 2;
		}
	}
	xsEndHost(gMachine);
	if (gStatus)
		return gStatus;
	usage(the, &bootSlots, &bootChunks);

	GIOChannel* in = g_io_channel_unix_new(0);
	g_io_add_watch(in, G_IO_IN | G_IO_HUP | G_IO_ERR, onInput, NULL);
	g_unix_signal_add(SIGINT, onSignal, NULL);
	g_unix_signal_add(SIGTERM, onSignal, NULL);
	g_main_loop_run(gLoop);

	stopService();
	usage(the, &endSlots, &endChunks);
	fprintf(stderr,
		"{\"host\":\"x-cli-lin\",\"created_slots\":%ld,\"created_chunk_bytes\":%ld,\"boot_slots\":%ld,\"boot_chunk_bytes\":%ld,"
		"\"end_slots\":%ld,\"end_chunk_bytes\":%ld,\"peak_slots\":%ld,\"peak_chunk_bytes\":%ld,"
		"\"heap_slots\":%ld,\"chunk_bytes\":%ld,\"stack_peak\":%ld,\"calls\":%ld}\n",
		(long)createdSlots, (long)createdChunks, (long)bootSlots, (long)bootChunks,
		(long)endSlots, (long)endChunks, (long)the->peakHeapCount, (long)the->peakChunksSize,
		(long)the->maximumHeapCount, (long)the->maximumChunksSize,
#ifdef mxInstrument
		(long)(the->stackTop - the->stackPeak),
#else
		-1L,
#endif
		gCalls);
	g_io_channel_unref(in);
	xsDeleteMachine(gMachine);
	g_main_loop_unref(gLoop);
	return gStatus;
}
