"""Resolution: components, instances, templates, status, resources, pods and writes."""
