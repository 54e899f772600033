"""The policy the example trains: a byte-level chat template, a textual tool-call format, and a small GRU.

Tokens are the 256 byte values plus five specials. A conversation is rendered as

    <|system|>Open the box, then answer with its key.\n#a open_box<|end|><|user|>box-1: ...<|end|><|assistant|>

Tools are listed in the system block as `#<letter> <name>`; the model calls one by writing `#` and the tool's letter
(`#a`), followed by its JSON arguments when the tool has parameters. A call to a tool without parameters is complete
at its letter, and generation stops there (as a server stops at a stop string). Everything else is the answer. The template renders an
assistant turn back exactly as it was sampled, so each turn's prompt extends the previous prompt and completion,
and corral's training samples keep a whole rollout as one token sequence.

The model reads every byte but writes only ACTIONS (its output head is masked to them, as constrained decoding
would), so a policy initialised from scratch finds the reward by chance within a few steps.
"""

import torch
from torch import nn

SPECIALS = ["<|system|>", "<|user|>", "<|assistant|>", "<|tool|>", "<|end|>"]
SYSTEM, USER, ASSISTANT, TOOL, END = range(256, 256 + len(SPECIALS))
VOCAB_SIZE = 256 + len(SPECIALS)
ROLE_TOKENS = {"system": SYSTEM, "user": USER, "assistant": ASSISTANT, "tool": TOOL}

# What the policy can write: the tool-call mark, three letters, and the end of its turn.
ACTIONS = [ord(character) for character in "#abc"] + [END]


def tool_letter(index):
    return chr(ord("a") + index)


def encode_text(text):
    return list((text or "").encode("utf-8"))


def decode_text(token_ids):
    return bytes(token for token in token_ids if token < 256).decode("utf-8", "replace")


def render_assistant(message, tool_names):
    """An assistant message as the model wrote it: its answer, or `#<letter><arguments>` per tool call."""
    calls = message.get("tool_calls") or []
    if not calls:
        return message.get("content") or ""
    text = ""
    for call in calls:
        function = call["function"]
        index = tool_names.index(function["name"]) if function["name"] in tool_names else len(tool_names)
        arguments = function.get("arguments") or "{}"
        text += "#" + tool_letter(index) + ("" if arguments == "{}" else arguments)
    return text


def render_prompt(messages, tools):
    """Token ids of the conversation, ending with the assistant tag that asks for the next turn."""
    tool_names = [tool["function"]["name"] for tool in tools or []]
    listing = "".join(f"\n#{tool_letter(index)} {name}" for index, name in enumerate(tool_names))
    ids = []
    if listing and (not messages or messages[0]["role"] != "system"):
        ids += [SYSTEM] + encode_text(listing.lstrip("\n")) + [END]
    for position, message in enumerate(messages):
        role = message["role"]
        if role == "assistant":
            text = render_assistant(message, tool_names)
        else:
            text = message.get("content") or ""
            if role == "system" and position == 0:
                text += listing
        ids += [ROLE_TOKENS[role]] + encode_text(text) + [END]
    return ids + [ASSISTANT]


def ends_call(text, tools):
    """True when text is a whole call of a tool that takes no parameters: nothing more to sample."""
    _, calls = parse_reply(text, tools)
    if not calls or calls[0]["arguments"] != "{}":
        return False
    tool = next(tool for tool in tools if tool["function"]["name"] == calls[0]["name"])
    return not (tool["function"].get("parameters") or {}).get("properties")


def parse_reply(text, tools):
    """(content, tool_calls) of a sampled reply: `#<letter>` of a listed tool is a call, anything else the answer."""
    tool_names = [tool["function"]["name"] for tool in tools or []]
    if len(text) >= 2 and text[0] == "#":
        index = ord(text[1]) - ord("a")
        if 0 <= index < len(tool_names):
            arguments = text[2:] or "{}"
            return None, [{"name": tool_names[index], "arguments": arguments}]
    return text, []


class Policy(nn.Module):
    """Embedding, one GRU layer and a linear head over the byte vocabulary, masked to ACTIONS."""

    def __init__(self, embedding_size=32, hidden_size=128):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB_SIZE, embedding_size)
        self.gru = nn.GRU(embedding_size, hidden_size, batch_first=True)
        self.head = nn.Linear(hidden_size, VOCAB_SIZE)
        writable = torch.full((VOCAB_SIZE,), float("-inf"))
        writable[ACTIONS] = 0.0
        self.register_buffer("writable", writable)

    def forward(self, token_ids, state=None):
        """Log-probabilities of the next token at every position of token_ids (batch, time), and the GRU state."""
        outputs, state = self.gru(self.embedding(token_ids), state)
        return torch.log_softmax(self.head(outputs) + self.writable, dim=-1), state

    @torch.no_grad()
    def sample(self, prompt_ids, max_tokens, generator, stop=lambda token_ids: False):
        """Sampled token ids (ending with END, unless max_tokens or stop(token_ids) ended them first) and each one's
        logprob."""
        log_probs, state = self.forward(torch.tensor([prompt_ids]))
        last = log_probs[0, -1]
        token_ids, logprobs = [], []
        while len(token_ids) < max_tokens:
            token = int(torch.multinomial(last.exp(), 1, generator=generator))
            token_ids.append(token)
            logprobs.append(float(last[token]))
            if token == END or stop(token_ids):
                break
            log_probs, state = self.forward(torch.tensor([[token]]), state)
            last = log_probs[0, -1]
        return token_ids, logprobs
