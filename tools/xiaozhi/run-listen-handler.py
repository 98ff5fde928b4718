# Runs the xiaozhi server's own ListenTextMessageHandler (xinnan-tech/xiaozhi-esp32-server,
# main/xiaozhi-server; docs/XIAOZHI.md) against the message petmem's link sends
# for a reminder, with third-party packages stubbed and startToChat recorded.
#   git -C MIRROR archive HEAD main/xiaozhi-server/core main/xiaozhi-server/config | tar -x -C /tmp/xz
#   python3 tools/xiaozhi/run-listen-handler.py /tmp/xz/main/xiaozhi-server
import sys, types, importlib.abc, importlib.machinery, asyncio, json
SERVER = sys.argv[1] if len(sys.argv) > 1 else "/tmp/xz/main/xiaozhi-server"
sys.path.insert(0, SERVER)
missing = []
class Stub(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"): raise AttributeError(name)
        return type(name, (), {"__init__": lambda self, *a, **k: None, "__call__": lambda self, *a, **k: None})
class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        top = name.split(".")[0]
        if top in ("core", "config", "plugins_func", "org", "java", "_winapi", "msvcrt", "nt") or top in sys.stdlib_module_names: return None
        fr = sys._getframe(1)
        while fr and ("importlib" in fr.f_code.co_filename or fr.f_code.co_filename.startswith("<")): fr = fr.f_back
        if not fr or not fr.f_code.co_filename.startswith(SERVER): return None
        for f in sys.meta_path:
            if f is self: continue
            try: s = f.find_spec(name, path, target)
            except Exception: s = None
            if s: return None
        missing.append(name)
        return importlib.machinery.ModuleSpec(name, self, is_package=True)
    def create_module(self, spec): return Stub(spec.name)
    def exec_module(self, m): m.__path__ = []
sys.meta_path.append(Finder())
class _L:
    def bind(self, **k): return self
    def __getattr__(self, n): return lambda *a, **k: None
_cl = types.ModuleType("config.logger"); _cl.setup_logging = lambda *a, **k: _L(); _cl.create_connection_logger = lambda *a, **k: _L()
sys.modules["config.logger"] = _cl

# the modules the handler imports that pull the whole server in: the real
# send_stt_message is kept (core/handle/sendAudioHandle.py); startToChat and
# the ASR report are recorded instead of run
for _n in ("core.handle.receiveAudioHandle", "core.handle.reportHandle"):
    _m = types.ModuleType(_n); _m.startToChat = None; _m.enqueue_asr_report = None; sys.modules[_n] = _m
import core.handle.textHandler.listenMessageHandler as L
chats = []
async def startToChat(conn, text): chats.append(text)
L.startToChat = startToChat
L.enqueue_asr_report = lambda conn, text, audio: None

class Log:
    def bind(self, **k): return self
    def info(self, m): print("server log:", m)
    def debug(self, m): pass
class WS:
    def __init__(self): self.sent = []
    async def send(self, m): self.sent.append(json.loads(m))
class Queue:
    def __init__(self): self.items = []
    def put(self, x): self.items.append(x)
class TTS:
    def __init__(self): self.tts_text_queue = Queue(); self.stored = {}; self.sentences = []
    def store_tts_text(self, sid, text): self.stored[sid] = text
    def tts_one_sentence(self, conn, content_type, content_detail=None, **k):
        import re
        self.sentences += [s for s in re.split(r"([。！？!?；;\n])", content_detail)]
class Dialogue:
    def __init__(self): self.dialogue = []
    def put(self, m): self.dialogue.append((m.role, m.content))
class Conn:
    def __init__(self):
        self.logger = Log(); self.websocket = WS(); self.tts = TTS(); self.dialogue = Dialogue()
        self.session_id = "s1"; self.sentence_id = None; self.incoming_call = None
        self.client_have_voice = True; self.config = {"wakeup_words": ["你好小智"], "enable_greeting": True}
        self.last_activity_time = 0
    def reset_audio_states(self): pass

async def main(msg):
    conn = Conn()
    await L.ListenTextMessageHandler().handle(conn, msg)
    return {"to_device": conn.websocket.sent, "spoken": [s for s in conn.tts.sentences if s], "tts_queue": [str(getattr(x, "sentence_type", x)) for x in conn.tts.tts_text_queue.items], "dialogue": conn.dialogue.dialogue, "incoming_call": conn.incoming_call, "to_model_as_user": list(chats)}

for text in ["[device_call]哎对了，你现在有个吃早饭哦", "哎对了，你现在有个吃早饭哦"]:
    chats.clear()
    msg = {"session_id": "s1", "type": "listen", "state": "detect", "text": text}
    print(json.dumps({"device_sent": msg, **asyncio.run(main(msg))}, ensure_ascii=False))
print("stubbed third-party packages:", sorted(set(m.split(".")[0] for m in missing)))
