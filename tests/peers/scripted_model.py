"""A scripted model on loopback, speaking the OpenAI Chat Completions (`/v1/chat/completions`) and
Responses (`/v1/responses`) APIs, the Anthropic Messages API (`/v1/messages`) and Gemini's
`generateContent` (`/v1beta/models/MODEL:generateContent`), for `sightline agent` tests: its replies follow a script that reacts to what it reads, the seed's flight booking.

- With no tool result yet, it calls the booking tool with a past date (12/12/2024).
- A result that says the booking was made ("Booked", wrapped or not): it answers with text.
- A result that carries the server's reason with a date it can read ("Current date is
  dd/mm/yyyy"): it calls again with 12/12 of the year after that date.
- Anything else (a generic failure, nothing to read): the same call again, three times; then it
  gives up with a text answer.

With `"stream": true` (Chat Completions, Responses, Messages) or at `:streamGenerateContent`
(Gemini) the answer comes as the API streams it: server-sent events, the text in word-sized
pieces 20 ms apart, a tool call's arguments in two pieces (Gemini: whole), the usage last (Chat
Completions sends it only when `stream_options.include_usage` asks).

Requests the real API refuses are refused the same way (HTTP 400, an `error` object): no model
or no messages, a tool result that answers no call of the turn before it, a tool result without
content, tools without a function name. Every request is appended to the log file, one JSON
object per line, headers included (the key is checked for by the tests, never echoed).

Usage: python3 scripted_model.py PORT_FILE LOG_FILE
"""

import json
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAST = "12/12/2024"
RETRIES = 3
CURRENT = re.compile(r"Current date is (\d{2})/(\d{2})/(\d{4})")


def refuse(message, param=None):
    return 400, {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": None}}


def problems(body):
    """Why the real API would refuse this request, or None."""
    if not isinstance(body.get("model"), str) or not body["model"]:
        return refuse("you must provide a model parameter", "model")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return refuse("[] is too short - 'messages'", "messages")
    for tool in body.get("tools") or []:
        if tool.get("type") != "function" or not isinstance(tool.get("function", {}).get("name"), str):
            return refuse("Missing required parameter: 'tools[0].function.name'.", "tools")
    open_calls = set()
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            call = message.get("tool_call_id")
            if call not in open_calls:
                return refuse(
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
                    "message with 'tool_calls'.",
                    f"messages.[{index}].role",
                )
            if "content" not in message:
                return refuse(f"Missing required parameter: 'messages.[{index}].content'.", f"messages.[{index}].content")
            open_calls.discard(call)
        else:
            if open_calls:
                return refuse(
                    "An assistant message with 'tool_calls' must be followed by tool messages responding "
                    "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                    + ", ".join(sorted(open_calls)),
                    f"messages.[{index}].role",
                )
            if role == "assistant":
                open_calls = {call["id"] for call in message.get("tool_calls") or []}
            elif role not in ("user", "system", "developer"):
                return refuse(f"Invalid value: '{role}'.", f"messages.[{index}].role")
    return None


def text_of(content):
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


def decide(tools, results, last_arguments):
    """The script's next turn: ('call', name, arguments) or ('text', words)."""
    booking = next((name for name in tools if name.endswith("book_flight")), None)
    if booking is None:
        return ("text", "I have no tool to book a flight with.")
    if not results:
        return ("call", booking, {"departureDate": PAST})
    last = results[-1]
    if "Booked" in last:
        return ("text", "Done. " + last)
    current = CURRENT.search(last)
    if current:
        return ("call", booking, {"departureDate": f"12/12/{int(current.group(3)) + 1}"})
    if len(results) <= RETRIES:
        return ("call", booking, last_arguments or {"departureDate": PAST})
    return ("text", "I could not book the flight: the tool kept failing and did not say why.")


def chat_turn(body):
    tools = [tool["function"]["name"] for tool in body.get("tools") or []]
    results = [text_of(m.get("content")) for m in body["messages"] if m.get("role") == "tool"]
    calls = [c for m in body["messages"] if m.get("role") == "assistant" for c in m.get("tool_calls") or []]
    last = json.loads(calls[-1]["function"]["arguments"]) if calls else None
    return decide(tools, results, last)


def anthropic_problems(body, headers):
    """Why the Messages API would refuse this request, or None."""
    def refused(message):
        return 400, {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    if not headers.get("anthropic-version"):
        return refused("anthropic-version: header is required")
    for field in ("model", "max_tokens", "messages"):
        if field not in body:
            return refused(f"{field}: Field required")
    messages = body["messages"]
    if not messages or messages[0].get("role") != "user":
        return refused("messages: first message must use the \"user\" role")
    open_calls = set()
    for index, message in enumerate(messages):
        blocks = message.get("content") if isinstance(message.get("content"), list) else []
        results = {b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"}
        if message.get("role") == "user":
            if results - open_calls:
                return refused(
                    f"messages.{index}.content.0: unexpected `tool_use_id` found in `tool_result` blocks: "
                    + ", ".join(sorted(results - open_calls))
                    + ". Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                )
            if open_calls - results:
                return refused(
                    f"messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                    + ", ".join(sorted(open_calls - results))
                )
            open_calls = set()
        elif message.get("role") == "assistant":
            open_calls = {b["id"] for b in blocks if b.get("type") == "tool_use"}
        else:
            return refused(f"messages.{index}.role: Input should be 'user' or 'assistant'")
        if index > 0 and message.get("role") == messages[index - 1].get("role"):
            return refused("messages: roles must alternate between \"user\" and \"assistant\"")
    for tool in body.get("tools") or []:
        if "name" not in tool or "input_schema" not in tool:
            return refused("tools.0.custom.input_schema: Field required")
    return None


def anthropic_turn(body):
    tools = [tool["name"] for tool in body.get("tools") or []]
    results, last = [], None
    for message in body["messages"]:
        for block in message.get("content") if isinstance(message.get("content"), list) else []:
            if block.get("type") == "tool_result":
                results.append(text_of(block.get("content")) if not isinstance(block.get("content"), str) else block["content"])
            elif block.get("type") == "tool_use":
                last = block.get("input")
    return decide(tools, results, last)


def responses_problems(body):
    """Why the Responses API would refuse this request, or None."""
    if not isinstance(body.get("model"), str) or not body["model"]:
        return refuse("Missing required parameter: 'model'.", "model")
    items = body.get("input")
    if not isinstance(items, (list, str)) or not items:
        return refuse("Missing required parameter: 'input'.", "input")
    calls = set()
    for index, item in enumerate(items if isinstance(items, list) else []):
        if item.get("type") == "function_call":
            calls.add(item.get("call_id"))
        elif item.get("type") == "function_call_output":
            if item.get("call_id") not in calls:
                return refuse(f"No tool call found for function call output with call_id {item.get('call_id')}.", "input")
            if "output" not in item:
                return refuse(f"Missing required parameter: 'input[{index}].output'.", f"input[{index}].output")
    for tool in body.get("tools") or []:
        if tool.get("type") == "function" and not isinstance(tool.get("name"), str):
            return refuse("Missing required parameter: 'tools[0].name'.", "tools")
    return None


def responses_turn(body):
    items = body["input"] if isinstance(body["input"], list) else []
    tools = [tool.get("name") for tool in body.get("tools") or [] if tool.get("type") == "function"]
    results, last = [], None
    for item in items:
        if item.get("type") == "function_call_output":
            results.append(text_of(item["output"]) if not isinstance(item["output"], str) else item["output"])
        elif item.get("type") == "function_call":
            last = json.loads(item.get("arguments") or "{}")
    return decide(tools, results, last)


def gemini_problems(body):
    """Why generateContent would refuse this request, or None."""
    def refused(message):
        return 400, {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}
    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        return refused("* GenerateContentRequest.contents: contents is not specified")
    calls = 0
    for index, content in enumerate(contents):
        parts = content.get("parts") or []
        if not parts:
            return refused(f"* GenerateContentRequest.contents[{index}].parts: contents.parts must not be empty.")
        responses = sum(1 for part in parts if "functionResponse" in part)
        if responses and responses != calls:
            return refused(
                "Please ensure that the number of function response parts is equal to the number of "
                "function call parts of the function call turn."
            )
        calls = sum(1 for part in parts if "functionCall" in part) if content.get("role") == "model" else 0
    return None


def gemini_turn(body):
    tools = [d.get("name") for tool in body.get("tools") or [] for d in tool.get("functionDeclarations") or []]
    results, last = [], None
    for content in body["contents"]:
        for part in content.get("parts") or []:
            if "functionResponse" in part:
                response = part["functionResponse"].get("response") or {}
                results.append(str(response.get("output", response.get("error", ""))))
            elif "functionCall" in part:
                last = part["functionCall"].get("args")
    return decide(tools, results, last)


def words(text):
    """`text` in the pieces a streaming API sends: a word and the space after it."""
    return re.findall(r"\S+\s*|\s+", text)


class Handler(BaseHTTPRequestHandler):
    turn = 0

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            return self.reply(*refuse("We could not parse the JSON body of your request."))
        with open(self.server.log, "a") as log:
            log.write(json.dumps({"path": self.path, "headers": dict(self.headers), "body": body}) + "\n")
        if self.path.endswith("/v1/messages"):
            return self.messages_api(body)
        if self.path.endswith("/responses"):
            return self.responses_api(body)
        path = self.path.split("?")[0]
        if path.endswith(":generateContent"):
            return self.gemini_api(body)
        if path.endswith(":streamGenerateContent"):
            return self.gemini_api(body, stream=True)
        if not self.path.endswith("/chat/completions"):
            return self.reply(404, {"error": {"message": f"Unknown request URL: POST {self.path}.", "type": "invalid_request_error"}})
        refused = problems(body)
        if refused:
            return self.reply(*refused)
        Handler.turn += 1
        decision = chat_turn(body)
        if decision[0] == "call":
            _, name, arguments = decision
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [{
                    "id": f"call_{Handler.turn}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }],
            }
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": decision[1]}
            finish = "stop"
        # About what a tokenizer makes of it (4 bytes a token): the messages and the tools.
        prompt = len(json.dumps(body["messages"]) + json.dumps(body.get("tools") or [])) // 4
        if body.get("stream"):
            return self.chat_stream(body, message, finish, prompt)
        self.reply(200, {
            "id": f"chatcmpl-scripted-{Handler.turn}",
            "object": "chat.completion",
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": 20, "total_tokens": prompt + 20},
        })

    def messages_api(self, body):
        refused = anthropic_problems(body, self.headers)
        if refused:
            return self.reply(*refused)
        Handler.turn += 1
        decision = anthropic_turn(body)
        if decision[0] == "call":
            _, name, arguments = decision
            content = [{"type": "tool_use", "id": f"toolu_{Handler.turn:02d}", "name": name, "input": arguments}]
            stop = "tool_use"
        else:
            content = [{"type": "text", "text": decision[1]}]
            stop = "end_turn"
        prompt = len(json.dumps(body["messages"]) + json.dumps(body.get("tools") or [])) // 4
        if body.get("stream"):
            return self.messages_stream(body, content, stop, prompt)
        self.reply(200, {
            "id": f"msg_scripted_{Handler.turn}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": prompt, "output_tokens": 20},
        })

    def responses_api(self, body):
        refused = responses_problems(body)
        if refused:
            return self.reply(*refused)
        Handler.turn += 1
        decision = responses_turn(body)
        if decision[0] == "call":
            _, name, arguments = decision
            output = [{"type": "function_call", "id": f"fc_{Handler.turn}", "call_id": f"call_{Handler.turn}",
                       "name": name, "arguments": json.dumps(arguments), "status": "completed"}]
        else:
            output = [{"type": "message", "id": f"msg_{Handler.turn}", "role": "assistant", "status": "completed",
                       "content": [{"type": "output_text", "text": decision[1], "annotations": []}]}]
        prompt = len(json.dumps(body["input"]) + json.dumps(body.get("tools") or [])) // 4
        response = {
            "id": f"resp_scripted_{Handler.turn}",
            "object": "response",
            "status": "completed",
            "model": body["model"],
            "output": output,
            "error": None,
            "usage": {"input_tokens": prompt, "output_tokens": 20, "total_tokens": prompt + 20},
        }
        if not body.get("stream"):
            return self.reply(200, response)
        self.events()
        self.event({"type": "response.created", "response": {**response, "status": "in_progress", "output": []}},
                   "response.created")
        for index, item in enumerate(output):
            if item["type"] == "message":
                for piece in words(item["content"][0]["text"]):
                    self.event({"type": "response.output_text.delta", "output_index": index, "content_index": 0,
                                "delta": piece}, "response.output_text.delta")
                    time.sleep(0.02)
            else:
                half = len(item["arguments"]) // 2
                for piece in (item["arguments"][:half], item["arguments"][half:]):
                    self.event({"type": "response.function_call_arguments.delta", "output_index": index,
                                "delta": piece}, "response.function_call_arguments.delta")
            self.event({"type": "response.output_item.done", "output_index": index, "item": item},
                       "response.output_item.done")
        self.event({"type": "response.completed", "response": response}, "response.completed")

    def gemini_api(self, body, stream=False):
        refused = gemini_problems(body)
        if refused:
            return self.reply(*refused)
        Handler.turn += 1
        decision = gemini_turn(body)
        if decision[0] == "call":
            _, name, arguments = decision
            parts = [{"functionCall": {"name": name, "args": arguments}}]
        else:
            parts = [{"text": decision[1]}]
        prompt = len(json.dumps(body["contents"]) + json.dumps(body.get("tools") or [])) // 4
        if stream:
            self.events()
            texts = [piece for part in parts if "text" in part for piece in words(part["text"])]
            for piece in texts:
                self.event({"candidates": [{"content": {"role": "model", "parts": [{"text": piece}]}, "index": 0}]})
                time.sleep(0.02)
            calls = [part for part in parts if "functionCall" in part]
            self.event({
                "candidates": [{"content": {"role": "model", "parts": calls}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": prompt, "candidatesTokenCount": 20,
                                  "totalTokenCount": prompt + 20},
            })
            return
        self.reply(200, {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": prompt, "candidatesTokenCount": 20, "totalTokenCount": prompt + 20},
            "modelVersion": "scripted",
        })

    def events(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()

    def event(self, data, name=None):
        head = f"event: {name}\n" if name else ""
        self.wfile.write(f"{head}data: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()

    def chat_stream(self, body, message, finish, prompt):
        self.events()
        base = {"id": f"chatcmpl-scripted-{Handler.turn}", "object": "chat.completion.chunk", "model": body["model"]}

        def chunk(delta, reason=None):
            self.event({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]})

        chunk({"role": "assistant", "content": ""})
        for piece in words(message.get("content") or ""):
            chunk({"content": piece})
            time.sleep(0.02)
        for index, call in enumerate(message.get("tool_calls") or []):
            arguments = call["function"]["arguments"]
            half = len(arguments) // 2
            chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                   "function": {"name": call["function"]["name"], "arguments": arguments[:half]}}]})
            chunk({"tool_calls": [{"index": index, "function": {"arguments": arguments[half:]}}]})
        chunk({}, finish)
        if (body.get("stream_options") or {}).get("include_usage"):
            self.event({**base, "choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": 20,
                                                         "total_tokens": prompt + 20}})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    def messages_stream(self, body, content, stop, prompt):
        self.events()
        self.event({"type": "message_start", "message": {
            "id": f"msg_scripted_{Handler.turn}", "type": "message", "role": "assistant", "model": body["model"],
            "content": [], "stop_reason": None, "usage": {"input_tokens": prompt, "output_tokens": 1}}}, "message_start")
        for index, block in enumerate(content):
            if block["type"] == "text":
                self.event({"type": "content_block_start", "index": index,
                            "content_block": {"type": "text", "text": ""}}, "content_block_start")
                for piece in words(block["text"]):
                    self.event({"type": "content_block_delta", "index": index,
                                "delta": {"type": "text_delta", "text": piece}}, "content_block_delta")
                    time.sleep(0.02)
            else:
                self.event({"type": "content_block_start", "index": index, "content_block": {
                    "type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}}, "content_block_start")
                raw = json.dumps(block["input"])
                half = len(raw) // 2
                for piece in (raw[:half], raw[half:]):
                    self.event({"type": "content_block_delta", "index": index,
                                "delta": {"type": "input_json_delta", "partial_json": piece}}, "content_block_delta")
            self.event({"type": "content_block_stop", "index": index}, "content_block_stop")
        self.event({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 20}}, "message_delta")
        self.event({"type": "message_stop"}, "message_stop")

    def reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main():
    port_file, log = sys.argv[1], sys.argv[2]
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.log = log
    with open(port_file + ".tmp", "w") as out:
        out.write(str(server.server_address[1]))
    import os
    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
