"""The same trigger loop through pygame's mixer (same SDL_mixer): microseconds per trigger."""
import os
import sys
import time

os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
import pygame  # noqa: E402

triggers, path = int(sys.argv[1]), sys.argv[2]
pygame.mixer.init(frequency=48000, size=-16, channels=2, buffer=512)
pygame.mixer.set_num_channels(256)
sound = pygame.mixer.Sound(path)
start = time.perf_counter()
for _ in range(triggers):
    channel = pygame.mixer.find_channel(True)  # True: steal the oldest when all are busy
    channel.play(sound)
print(f"{(time.perf_counter() - start) / triggers * 1e6:.4f}")
