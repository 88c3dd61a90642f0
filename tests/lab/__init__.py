"""The cluster lab: real control plane, real controllers, KWOK nodes and real operators (marker ``lab``)."""
