"""The table page's hold/ack of deal-end summaries: the domain logic lives in
:mod:`service.deal_hold` (the workers' bot turns ask it too); this name stays for the page."""

from service.deal_hold import MOST_SECONDS, ack, deals_over, defer_bot, hold, key, wait_left

__all__ = ["MOST_SECONDS", "ack", "deals_over", "defer_bot", "hold", "key", "wait_left"]
