#!/usr/bin/env python3
"""A small tool-calling agent using only the Python standard library.

tracegate contract (docs/agents.md): one agent-input/v1 JSON object arrives on stdin; the agent runs
in the trial's workspace; the final answer goes to stdout. Model calls go to OPENAI_BASE_URL with
OPENAI_API_KEY -- under tracegate that is the trial's capture proxy and a dummy key, so tracegate
sees every model call and tool call without any instrumentation here.
"""
import json
import os
import sys
import urllib.error
import urllib.request

TOOLS = [
    {"type": "function", "function": {
        "name": "list_files", "description": "List the files under a folder of the workspace.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}},
    {"type": "function", "function": {
        "name": "read_file", "description": "Read a text file of the workspace.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}},
]


def inside(path):
    full = os.path.realpath(os.path.join(os.getcwd(), path))
    return full if full == os.getcwd() or full.startswith(os.getcwd() + os.sep) else None


def run_tool(name, arguments):
    """Tool results are ToolResult-shaped JSON, so tracegate can tell a failed call from a good one."""
    try:
        args = json.loads(arguments or "{}")
    except json.JSONDecodeError as error:
        return {"ok": False, "error_type": "INVALID_ARGUMENTS", "message": str(error), "recoverable": True}
    path = inside(str(args.get("path", ".")))
    if path is None:
        return {"ok": False, "error_type": "PATH_OUTSIDE_WORKSPACE", "message": "stay inside the workspace", "recoverable": True}
    if name == "list_files":
        found = []
        for root, _dirs, files in os.walk(path):
            found += [os.path.relpath(os.path.join(root, f), os.getcwd()) for f in files]
        return {"ok": True, "result": "\n".join(sorted(found))}
    if name == "read_file":
        if not os.path.isfile(path):
            return {"ok": False, "error_type": "FILE_NOT_FOUND", "message": f"{args.get('path')} does not exist",
                    "recoverable": True, "suggestion": "list the files to find the right name"}
        with open(path, encoding="utf-8", errors="replace") as handle:
            return {"ok": True, "result": handle.read()[:20000]}
    return {"ok": False, "error_type": "UNKNOWN_TOOL", "message": f"no tool {name}", "recoverable": True}


def chat(messages):
    """One streaming chat-completions call; folds the SSE chunks into content and tool calls."""
    body = {"model": os.environ.get("OPENAI_MODEL", "gpt-4o-mini"), "messages": messages, "tools": TOOLS,
            "temperature": 0, "stream": True, "stream_options": {"include_usage": True}}
    request = urllib.request.Request(
        os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions", data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "authorization": "Bearer " + os.environ.get("OPENAI_API_KEY", "")})
    content, calls = "", {}
    with urllib.request.urlopen(request, timeout=120) as response:
        for raw in response:
            line = raw.decode().strip()
            if not line.startswith("data:") or line == "data: [DONE]":
                continue
            for choice in json.loads(line[5:]).get("choices", []):
                delta = choice.get("delta", {})
                content += delta.get("content") or ""
                for part in delta.get("tool_calls") or []:
                    call = calls.setdefault(part["index"], {"id": "", "name": "", "arguments": ""})
                    call["id"] = call["id"] or part.get("id") or ""
                    call["name"] += (part.get("function") or {}).get("name") or ""
                    call["arguments"] += (part.get("function") or {}).get("arguments") or ""
    return content, [calls[i] for i in sorted(calls)]


def main():
    task = json.load(sys.stdin)
    messages = [
        {"role": "system", "content": "You answer questions about the files in the workspace. Use the tools; answer briefly."},
        {"role": "user", "content": task["prompt"]},
    ]
    for _step in range(task["max_steps"]):
        content, calls = chat(messages)
        if not calls:
            print(content)
            return 0
        messages.append({"role": "assistant", "content": content or None, "tool_calls": [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}} for c in calls]})
        for call in calls:
            result = run_tool(call["name"], call["arguments"])
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)})
    print("I ran out of steps before finding the answer.")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except urllib.error.HTTPError as error:
        print(f"model call failed: HTTP {error.code}: {error.read().decode(errors='replace')[:500]}", file=sys.stderr)
        sys.exit(1)
